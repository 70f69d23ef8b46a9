# Runs inside Blender (blender -b --factory-startup --python-exit-code 1 --python check_import.py --
#   ADDON FILE VIA MIN_LIT MIN_UNLIT): installs and enables the add-on as a user would, imports FILE
# (a bspkit glTF export, .glb or .gltf) through the add-on's operator (VIA=operator) or its
# import_map function (VIA=function), and checks the lightmap wiring against the file itself, read
# here with this script's own glTF reader:
#   - materials with extras.lightmap (at least MIN_LIT) are exactly those with the lightmap node,
#     and there are at least MIN_UNLIT materials without it;
#   - the node's image holds the atlas PNG's bytes, with the IHDR's width and height;
#   - its UV comes from a UV Map node naming a layer of every mesh using the material, and that
#     layer holds TEXCOORD_1's coordinates (V flipped) of the material's primitives;
#   - its colour is multiplied with the base colour (texture image or baseColorFactor) and the
#     product reaches the active Material Output;
#   - where the lit materials are one flat colour, a Cycles emission bake into the atlas layout
#     gives that colour times the atlas at every texel the meshes cover.
import base64
import json
import os
import struct
import sys

import addon_utils
import bpy

ADDON, PATH, VIA, MIN_LIT, MIN_UNLIT = sys.argv[sys.argv.index("--") + 1:]
NODE = "bspkit lightmap"


def fail(msg):
    raise AssertionError(msg)


# --- the file, read independently of the add-on ---
raw = open(PATH, "rb").read()
if raw[:4] == b"glTF":
    (jlen,) = struct.unpack("<I", raw[12:16])
    gltf = json.loads(raw[20:20 + jlen].decode("utf-8"))
    chunk1 = raw[28 + jlen:]
else:
    gltf = json.loads(raw.decode("utf-8"))
    chunk1 = b""


def external(uri):
    if uri.startswith("data:"):
        return base64.b64decode(uri.partition(",")[2])
    return open(os.path.join(os.path.dirname(PATH), uri), "rb").read()


def view_bytes(index):
    view = gltf["bufferViews"][index]
    buf = gltf["buffers"][view["buffer"]]
    data = external(buf["uri"]) if "uri" in buf else chunk1
    start = view.get("byteOffset", 0)
    return data[start:start + view["byteLength"]], view.get("byteStride")


def image_bytes(texture):
    image = gltf["images"][gltf["textures"][texture]["source"]]
    return external(image["uri"]) if "uri" in image else view_bytes(image["bufferView"])[0]


def texcoords(accessor):
    acc = gltf["accessors"][accessor]
    assert acc["componentType"] == 5126 and acc["type"] == "VEC2", acc
    data, stride = view_bytes(acc["bufferView"])
    start = acc.get("byteOffset", 0)
    return [struct.unpack_from("<2f", data, start + i * (stride or 8)) for i in range(acc["count"])]


lit = {m["name"]: m for m in gltf.get("materials", []) if "lightmap" in m.get("extras", {})}
unlit = [m["name"] for m in gltf.get("materials", []) if m["name"] not in lit]
print("file: %d lit materials, %d unlit" % (len(lit), len(unlit)))
if len(lit) < int(MIN_LIT) or len(unlit) < int(MIN_UNLIT):
    fail("the export has %d lit and %d unlit materials, expected at least %s and %s"
         % (len(lit), len(unlit), MIN_LIT, MIN_UNLIT))

# --- the add-on, installed as Edit > Preferences > Add-ons > Install... does ---
bpy.ops.preferences.addon_install(filepath=ADDON)
addon = addon_utils.enable("bspkit_import", default_set=True)
if addon is None or not hasattr(bpy.ops.import_scene, "bspkit_gltf"):
    fail("the add-on did not register its operator")
if addon.menu_import not in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize():
    fail("the add-on is not in File > Import")
if VIA == "operator":
    if bpy.ops.import_scene.bspkit_gltf(filepath=PATH) != {"FINISHED"}:
        fail("the import operator did not finish")
else:
    addon.import_map(PATH)

with_node = sorted(m.name for m in bpy.data.materials if m.node_tree and NODE in m.node_tree.nodes)
if with_node != sorted(lit):
    fail("materials with the lightmap node %s, with extras.lightmap %s" % (with_node, sorted(lit)))


def upstream(socket):
    """Nodes feeding this input, transitively."""
    seen, todo = [], [l.from_node for l in socket.links]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.append(n)
            todo += [l.from_node for i in n.inputs for l in i.links]
    return seen


def reaches_output(node):
    todo, seen = [node], set()
    while todo:
        n = todo.pop()
        if n.bl_idname == "ShaderNodeOutputMaterial" and n.is_active_output:
            return True
        seen.add(n.name)
        todo += [l.to_node for o in n.outputs for l in o.links if l.to_node.name not in seen]
    return False


lightmap_layers = set()
for name, gmat in lit.items():
    mat = bpy.data.materials[name]
    ref = gmat["extras"]["lightmap"]
    png = image_bytes(ref["index"])
    width, height = struct.unpack(">II", png[16:24])
    node = mat.node_tree.nodes[NODE]
    if node.bl_idname != "ShaderNodeTexImage" or node.image is None:
        fail("%s: the lightmap node is not an image texture with an image" % name)
    if tuple(node.image.size) != (width, height):
        fail("%s: lightmap image %dx%d, the atlas PNG is %dx%d" % (name, *node.image.size, width, height))
    if node.image.packed_file is None or node.image.packed_file.data != png:
        fail("%s: the lightmap image does not hold the atlas PNG" % name)

    # UV: a UV Map node naming a layer of the meshes that holds TEXCOORD_1.
    uv_nodes = [n for n in upstream(node.inputs["Vector"]) if n.bl_idname == "ShaderNodeUVMap"]
    if len(uv_nodes) != 1:
        fail("%s: the lightmap is not read through one UV Map node" % name)
    layer = uv_nodes[0].uv_map
    lightmap_layers.add(layer)
    want = []
    for mesh in gltf["meshes"]:
        for prim in mesh["primitives"]:
            if gltf["materials"][prim["material"]]["name"] == name:
                coords = texcoords(prim["attributes"]["TEXCOORD_%d" % ref["texCoord"]])
                want += [(u, 1.0 - v) for u, v in coords]
    users = [o for o in bpy.data.objects if o.type == "MESH" and mat in o.data.materials[:]]
    if not users:
        fail("%s: no mesh uses the material" % name)
    for obj in users:
        me = obj.data
        if layer not in me.uv_layers:
            fail("%s: mesh %s has no UV layer %r (it has %s)" % (name, me.name, layer, me.uv_layers.keys()))
        slots = [i for i, m in enumerate(me.materials) if m == mat]
        uvs = me.uv_layers[layer].data
        for poly in me.polygons:
            if poly.material_index in slots:
                for li in poly.loop_indices:
                    u, v = uvs[li].uv
                    if not any(abs(u - a) < 1e-4 and abs(v - b) < 1e-4 for a, b in want):
                        fail("%s: UV layer %r of %s holds (%g, %g), not one of TEXCOORD_%d's coordinates"
                             % (name, layer, me.name, u, v, ref["texCoord"]))

    # The lightmap multiplies the base colour and the product reaches the output.
    outs = [l.to_node for l in node.outputs["Color"].links]
    mul = [n for n in outs if (n.bl_idname == "ShaderNodeVectorMath" and n.operation == "MULTIPLY")
           or (n.bl_idname == "ShaderNodeMixRGB" and n.blend_type == "MULTIPLY")
           or (n.bl_idname == "ShaderNodeMix" and n.blend_type == "MULTIPLY")]
    if len(mul) != 1:
        fail("%s: the lightmap colour goes into no multiply node" % name)
    others = [i for i in mul[0].inputs if i.enabled and i.type in ("RGBA", "VECTOR")
              and not (i.is_linked and i.links[0].from_node == node)]
    pbr = gmat.get("pbrMetallicRoughness", {})
    if "baseColorTexture" in pbr:
        base_png = image_bytes(pbr["baseColorTexture"]["index"])
        if not any(n.bl_idname == "ShaderNodeTexImage" and n.image and n.image.packed_file
                   and n.image.packed_file.data == base_png for i in others for n in upstream(i)):
            fail("%s: the lightmap does not multiply the base colour texture" % name)
    else:
        factor = pbr.get("baseColorFactor", [1, 1, 1, 1])[:3]
        if not any(not i.is_linked and all(abs(a - b) < 1e-4 for a, b in zip(i.default_value, factor))
                   for i in others):
            fail("%s: the lightmap does not multiply the base colour %s" % (name, factor))
    if not reaches_output(mul[0]):
        fail("%s: texture x lightmap does not reach the material output" % name)
    print("%s: lightmap %dx%d on UV layer %r, multiplied into the shader" % (name, width, height, layer))

# What the shader gives: Cycles bakes the lit meshes' emission into the atlas layout (their
# TEXCOORD_1 layer); where all lit materials are one flat colour, every baked texel must be that
# colour times the atlas texel (sRGB decoded), as texture x lightmap is in the game.
pbrs = [m.get("pbrMetallicRoughness", {}) for m in lit.values()]
factors = {tuple(p.get("baseColorFactor", [1, 1, 1, 1])[:3]) for p in pbrs}
if len(factors) == 1 and len(lightmap_layers) == 1 and not any("baseColorTexture" in p for p in pbrs):
    import numpy as np
    factor = np.array(factors.pop())
    atlas = bpy.data.materials[next(iter(lit))].node_tree.nodes[NODE].image
    width, height = atlas.size
    target = bpy.data.images.new("bake", width, height, float_buffer=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 1
    scene.cycles.use_denoising = False  # Debian's Blender is built without OpenImageDenoise
    objects = [o for o in scene.objects
               if o.type == "MESH" and any(m and m.name in lit for m in o.data.materials)]
    for o in scene.objects:
        o.select_set(o in objects)
    bpy.context.view_layer.objects.active = objects[0]
    for name in lit:
        tree = bpy.data.materials[name].node_tree
        tree.nodes.active = tree.nodes.new("ShaderNodeTexImage")
        tree.nodes.active.image = target
    if bpy.ops.object.bake(type="EMIT", margin=0, uv_layer=lightmap_layers.pop()) != {"FINISHED"}:
        fail("the emission bake did not finish")
    baked = np.array(target.pixels[:]).reshape(height, width, 4)[..., :3]
    texel = np.array(atlas.pixels[:]).reshape(height, width, 4)[..., :3]  # sRGB-encoded bytes / 255
    linear = np.where(texel <= 0.04045, texel / 12.92, ((texel + 0.055) / 1.055) ** 2.4)
    covered = baked.sum(-1) > 0
    err = np.abs(baked - factor * linear)[covered]
    print("bake: %d of %d atlas texels covered, largest difference %.2g"
          % (covered.sum(), covered.size, err.max()))
    if covered.sum() < 16 or err.max() > 1e-3:
        fail("the baked emission is not base colour x lightmap")
else:
    print("bake: skipped (lit materials are textured, of several colours or UV layers)")

print("ok: %d lit materials wired, %d unlit left alone" % (len(lit), len(unlit)))
