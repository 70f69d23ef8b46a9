# bspkit glTF import for Blender: imports a `bspkit export` .glb/.gltf through Blender's own glTF
# importer, then wires the baked lightmap atlas into every lit material.
#
# glTF has no lightmap slot, so bspkit stores the atlas as the texture named "lightmap", read through
# TEXCOORD_1, and names it in each lit material's extras: {"lightmap": {"index": TEXTURE,
# "texCoord": 1}}. Blender's importer keeps material extras as custom properties (mat["lightmap"])
# and turns TEXCOORD_n into the mesh's UV layer n, but loads no image that no material uses, so the
# atlas image is read from the file here.
#
# Install: Edit > Preferences > Add-ons > Install... this file, or `blender --python bspkit_import.py`.
# From a script: `import bspkit_import; bspkit_import.import_map("level.glb")`.

import base64
import json
import os
import struct
import urllib.parse
import warnings

import bpy
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

bl_info = {
    "name": "bspkit glTF (.glb/.gltf)",
    "description": "Import a bspkit-exported BSP map with its baked lightmap",
    "version": (1, 0, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > bspkit glTF (.glb/.gltf)",
    "category": "Import-Export",
}

NODE = "bspkit lightmap"  # the Image Texture node; its UV Map and multiply nodes are named after it


def read_gltf(path):
    """The glTF JSON and a function giving image i's bytes (GLB: chunk 0 JSON, chunk 1 BIN)."""
    with open(path, "rb") as f:
        data = f.read()
    glb_bin = None
    if data[:4] == b"glTF":
        n = struct.unpack_from("<I", data, 12)[0]
        doc = json.loads(data[20:20 + n])
        if len(data) >= 28 + n:
            m = struct.unpack_from("<I", data, 20 + n)[0]
            glb_bin = data[28 + n:28 + n + m]
    else:
        doc = json.loads(data)

    def uri_bytes(uri):
        if uri.startswith("data:"):
            return base64.b64decode(uri.split(",", 1)[1])
        with open(os.path.join(os.path.dirname(path), urllib.parse.unquote(uri)), "rb") as f:
            return f.read()

    def image_bytes(i):
        img = doc["images"][i]
        if "uri" in img:
            return uri_bytes(img["uri"])
        view = doc["bufferViews"][img["bufferView"]]
        buf = doc["buffers"][view["buffer"]]
        start = view.get("byteOffset", 0)
        return (uri_bytes(buf["uri"]) if "uri" in buf else glb_bin)[start:start + view["byteLength"]]

    return doc, image_bytes


def packed_image(name, data):
    """A Blender image holding these PNG bytes (packed into the .blend, as the glTF importer does)."""
    image = bpy.data.images.new(name, 8, 8)
    image.pack(data=data, data_len=len(data))
    image.source = "FILE"
    return image


def _input(node, *names):
    """The first input socket of these names (Blender 4 renamed some Principled BSDF inputs)."""
    return next(node.inputs[n] for n in names if n in node.inputs)


def wire_lightmap(mat, image, uv_name):
    """Make `mat` look as in the game: texture x lightmap, unlit.

    The base colour (texture or flat colour) times the lightmap goes into the Principled BSDF's
    Emission at strength 1, and its Base Color and Specular are set to black and 0, so the surface
    shows exactly the baked light whatever lights or world the scene has (Material Preview and
    renders alike), while the importer's alpha wiring (cut-out textures) keeps working.
    Both images are sRGB: multiplying decoded values equals decoding the product (the transfer
    curve is close to a power), so the result matches the game's 8-bit texture x lightmap; the
    Standard view transform shows it without Filmic's tone curve.
    """
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = next(n for n in nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    base = _input(bsdf, "Base Color")

    uv = nodes.new("ShaderNodeUVMap")
    uv.name = uv.label = NODE + " uv"
    uv.uv_map = uv_name
    tex = nodes.new("ShaderNodeTexImage")
    tex.name = tex.label = NODE
    tex.image = image
    tex.extension = "EXTEND"  # the atlas sampler clamps
    links.new(uv.outputs["UV"], tex.inputs["Vector"])

    mul = nodes.new("ShaderNodeVectorMath")
    mul.name = mul.label = NODE + " multiply"
    mul.operation = "MULTIPLY"
    if base.is_linked:
        links.new(base.links[0].from_socket, mul.inputs[0])
        links.remove(base.links[0])
    else:
        mul.inputs[0].default_value = base.default_value[:3]
    links.new(tex.outputs["Color"], mul.inputs[1])

    links.new(mul.outputs["Vector"], _input(bsdf, "Emission Color", "Emission"))
    _input(bsdf, "Emission Strength").default_value = 1.0
    base.default_value = (0.0, 0.0, 0.0, 1.0)
    _input(bsdf, "Specular IOR Level", "Specular").default_value = 0.0

    x, y = bsdf.location
    uv.location, tex.location, mul.location = (x - 900, y - 450), (x - 700, y - 400), (x - 250, y - 300)
    return tex


def import_map(path, standard_view=True):
    """Import a bspkit glTF export and wire its lightmap; returns {material name: lightmap node}."""
    # Debian's Blender 3.4 importer calls numpy.bool, which numpy 1.24 removed: give it the alias back.
    import numpy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not hasattr(numpy, "bool"):
            numpy.bool = bool

    old_objects = {o.as_pointer() for o in bpy.data.objects}
    old_mats = {m.as_pointer() for m in bpy.data.materials}
    if "FINISHED" not in bpy.ops.import_scene.gltf(filepath=path):
        raise RuntimeError("glTF import failed: " + path)
    meshes = [o.data for o in bpy.data.objects if o.as_pointer() not in old_objects and o.type == "MESH"]

    doc, image_bytes = read_gltf(path)
    images, wired = {}, {}
    for mat in bpy.data.materials:
        ref = mat.get("lightmap") if mat.as_pointer() not in old_mats else None
        if ref is None or not mat.use_nodes:
            continue
        source = doc["textures"][ref["index"]]["source"]
        if source not in images:
            images[source] = packed_image(doc["images"][source].get("name", "lightmap"), image_bytes(source))
        layer = ref.get("texCoord", 1)  # bspkit always writes 1
        names = [m.uv_layers[layer].name for m in meshes
                 if mat in m.materials[:] and len(m.uv_layers) > layer]
        if not names:
            print("bspkit: material %r: no mesh has UV layer %d, lightmap not wired" % (mat.name, layer))
            continue
        wired[mat.name] = wire_lightmap(mat, images[source], names[0])
    if standard_view:
        bpy.context.scene.view_settings.view_transform = "Standard"
    return wired


class ImportBspkitGltf(bpy.types.Operator, ImportHelper):
    """Import a bspkit glTF export with its baked lightmap"""
    bl_idname = "import_scene.bspkit_gltf"
    bl_label = "Import bspkit glTF"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: StringProperty(default="*.glb;*.gltf", options={"HIDDEN"})
    standard_view: BoolProperty(name="Standard view transform",
                                description="Show colours as the game does (no Filmic tone curve)",
                                default=True)

    def execute(self, context):
        wired = import_map(self.filepath, self.standard_view)
        self.report({"INFO"}, "bspkit: lightmap wired into %d materials" % len(wired))
        return {"FINISHED"}


def menu_import(self, context):
    self.layout.operator(ImportBspkitGltf.bl_idname, text="bspkit glTF (.glb/.gltf)")


def register():
    bpy.utils.register_class(ImportBspkitGltf)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    bpy.utils.unregister_class(ImportBspkitGltf)


if __name__ == "__main__":
    register()
