# check over many maps prints the same results in the same (argument) order
# with one thread, two and three, text and JSON: the workers run ahead of the
# printing by at most a window of maps (16 a thread), and 70 maps pass several
# windows. One map in each ten is damaged, so problems are printed too.
set -e
mkdir many
for i in $(seq -w 1 70); do
    case $i in
        *5) head -c 2000 "$GEN/goldsrc-room.bsp" > "many/m$i.bsp" ;;
        *2) cp "$GEN/source-room.bsp" "many/m$i.bsp" ;;
        *) cp "$GEN/quake-room.bsp" "many/m$i.bsp" ;;
    esac
done
for j in 1 2 3; do
    "$BSPKIT" check -j $j many/*.bsp > text$j.txt 2> err$j.txt || echo "exit $? with -j $j"
    "$BSPKIT" check -j $j --json many/*.bsp > json$j.txt 2>/dev/null || true
done
cmp text1.txt text2.txt && cmp text1.txt text3.txt && cmp err1.txt err2.txt && cmp err1.txt err3.txt &&
    echo "same text for 1, 2 and 3 threads"
cmp json1.txt json2.txt && cmp json1.txt json3.txt && echo "same JSON for 1, 2 and 3 threads"
grep -o '^many/m[0-9]*\.bsp' text1.txt | cmp - <(printf '%s\n' many/*.bsp) && echo "one line a map, in argument order"
tail -n 1 err1.txt
