#!/bin/sh
# A small seeded slice of the corruption sweep over real maps, one or two of
# each family, for the test suite. `make sweep` runs the whole corpus.
#   sweep_slice.sh SWEEP_BINARY MAPS_DIR
set -eu
sweep=$1
maps=$2
if [ ! -d "$maps" ]; then
  echo "skipped: $maps not present (corpus slice of the sweep not run)"
  exit 0
fi
set --
for m in "c0burn+Slipgate/maps/b_rock0.bsp" \
         "barnuri+cs1.6-server/maps/123kill.bsp" \
         "bsp_tool/maps/Team Fortress 2/test_physcollide.bsp" \
         "ata4+bspsrc/bspsrc-decompiler/src/test/resources/info/ata4/bspsrc/decompiler/modules/texture/l4d2_tooltextures.bsp" \
         "ata4+bspsrc/bspsrc-decompiler/src/test/resources/info/ata4/bspsrc/decompiler/modules/texture/csgo_tooltextures.bsp" \
         "jocarren+opentdm-docker/opentdm/maps/2box4.bsp" \
         "bsp_tool/maps/Quake 3 Arena/mp_lobby.bsp" \
         "Helioform+RTCW-BSP-Map-Viewer/WorldMaps/maps/TESTROOM.bsp"; do
  if [ -f "$maps/$m" ]; then set -- "$@" "$maps/$m"; else echo "note: $m not in $maps"; fi
done
[ $# -gt 0 ] || { echo "skipped: none of the slice's maps are in $maps"; exit 0; }
"$sweep" --seed 7 --flips 150 --cuts 20 "$@"
# The big-endian LZMA map decompresses on every case: fewer of them.
x360="bsp_tool/maps/Xbox360/The Orange Box/shack.360.bsp"
if [ -f "$maps/$x360" ]; then
  "$sweep" --seed 7 --flips 40 --cuts 5 --dir-values 2 "$maps/$x360"
else
  echo "note: $x360 not in $maps"
fi
