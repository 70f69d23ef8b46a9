// The viewer of `bspkit view`: reads the page's GLB (inflated by the page's
// loader, window.bspkitInflate) and its JSON block, draws every face unlit as
// texture x lightmap on the stored 8-bit values (as `bspkit render` does),
// with fly and orbit cameras, toggles for face kinds and markers, picking and
// a stats panel. Map axes are Z-up inches; the glTF is Y-up metres:
// map (x, y, z) -> (x, z, -y) * 0.0254.
import {
  Box3, BoxGeometry, Color, ColorManagement, DoubleSide, FrontSide, GLSL3, LinearFilter,
  LinearSRGBColorSpace, Mesh, MeshBasicMaterial, NearestFilter, NearestMipmapNearestFilter,
  NoColorSpace, OctahedronGeometry, PerspectiveCamera, Raycaster, RawShaderMaterial, Scene,
  Vector2, Vector3, WebGLRenderer,
} from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const SCALE = 0.0254;
const DEG = Math.PI / 180;
const BACKGROUND = [32, 32, 40]; // bspkit render's background
const KINDS = ['sky', 'tool', 'trigger', 'nodraw', 'props', 'entities'];
const DEFAULT_SHOWN = { sky: false, tool: false, trigger: false, nodraw: false, props: true, entities: true };

ColorManagement.enabled = false; // colours and texels go through as stored

const toWorld = (x, y, z) => new Vector3(x * SCALE, z * SCALE, -y * SCALE);
const toMap = (v) => [v.x / SCALE, -v.z / SCALE, v.y / SCALE];

// Forward and up of a Source-style pitch/yaw (pitch > 0 looks down, yaw about Z from +X), map axes.
function basis(pitch, yaw) {
  const cp = Math.cos(pitch * DEG), sp = Math.sin(pitch * DEG);
  const cy = Math.cos(yaw * DEG), sy = Math.sin(yaw * DEG);
  return { fwd: [cp * cy, cp * sy, -sp], up: [sp * cy, sp * sy, cp] };
}

const VERTEX = `
in vec3 position;
in vec2 uv;
#ifdef USE_UV1
in vec2 uv1;
#endif
uniform mat4 modelViewMatrix;
uniform mat4 projectionMatrix;
out vec2 vUv;
out vec2 vUv1;
void main() {
  vUv = uv;
#ifdef USE_UV1
  vUv1 = uv1;
#else
  vUv1 = vec2(0.0);
#endif
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}`;

// texel x luxel / 255, rounded, on 0..255 values; a missing texture is
// render's checker (4 x 4 cells per repeat of 128 and 96); faces the atlas
// did not place (lightmap coordinate (0, 0)) are at full brightness.
const FRAGMENT = `
precision highp float;
uniform sampler2D map;
uniform sampler2D lightmap;
uniform vec3 flatColor;
uniform float alphaTest;
in vec2 vUv;
in vec2 vUv1;
out vec4 outColor;
void main() {
#if defined(USE_MAP)
  vec4 s = texture(map, vUv);
  if (s.a < alphaTest) discard;
  vec3 t = floor(s.rgb * 255.0 + 0.5);
#elif defined(USE_CHECKER)
  ivec2 c = ivec2(floor(fract(vUv) * 4.0));
  vec3 t = vec3(((c.x + c.y) & 1) == 0 ? 128.0 : 96.0);
#else
  vec3 t = flatColor * 255.0;
#endif
  vec3 l = vec3(255.0);
#ifdef USE_LIGHTMAP
  if (vUv1 != vec2(0.0)) l = floor(texture(lightmap, vUv1).rgb * 255.0 + 0.5);
#endif
  outColor = vec4(floor(t * l / 255.0 + 0.5) / 255.0, 1.0);
}`;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'style') e.style.cssText = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function table(rows) {
  return el('table', {}, ...rows.map(([k, v]) => el('tr', {}, el('th', {}, String(k)), el('td', {}, String(v)))));
}

const CSS = `
.bk-panel{position:fixed;background:rgba(20,20,26,.86);border:1px solid #444;border-radius:4px;padding:6px 9px;
max-height:calc(100% - 30px);overflow:auto;box-sizing:border-box}
.bk-panel h2{font-size:13px;margin:2px 0 5px}.bk-panel table{border-collapse:collapse}
.bk-panel th{text-align:left;font-weight:normal;color:#aaa;padding:0 8px 0 0;vertical-align:top}
.bk-panel td{font-family:ui-monospace,monospace;word-break:break-all}
.bk-panel label{display:block;cursor:pointer}.bk-panel button{margin:4px 4px 0 0}
#bk-controls{left:8px;top:8px;width:230px}#bk-stats{right:8px;bottom:8px;width:230px;max-height:40%}
#bk-info{right:8px;top:8px;width:340px;max-height:calc(60% - 24px)}#bk-camera{font-family:ui-monospace,monospace;font-size:11px;color:#aaa}
.bk-hidden{display:none}`;

// #camera=X,Y,Z,PITCH,YAW,FOV and ui=0 from the fragment.
function readHash() {
  const out = { camera: null, ui: true };
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    const [k, v = ''] = part.split('=');
    if (k === 'camera') {
      const n = decodeURIComponent(v).split(',').map(Number);
      if (n.length >= 5 && n.every(Number.isFinite)) out.camera = { pos: n.slice(0, 3), pitch: n[3], yaw: n[4], fov: n[5] > 0 && n[5] < 180 ? n[5] : 90 };
    } else if (k === 'ui') {
      out.ui = v !== '0';
    }
  }
  return out;
}

// The kind of a mesh: its material's extras.class, or trigger for a brush
// entity whose classname starts with "trigger" (as the export's rule).
function kindOf(mesh, material) {
  const cls = material.userData && material.userData.class;
  if (cls) return cls;
  const owner = ownerOf(mesh);
  const d = owner ? owner.userData : {};
  return typeof d.classname === 'string' && /^trigger/.test(d.classname) && /^\*[1-9]/.test(String(d.model || '')) ? 'trigger' : null;
}

// The entity (or prop) key/values of the node a mesh belongs to.
function ownerOf(obj) {
  for (let o = obj; o; o = o.parent)
    if (o.userData && (o.userData.classname !== undefined || o.userData.prop_index !== undefined || o.userData.model_index !== undefined))
      return o;
  return null;
}

async function main() {
  const meta = JSON.parse(document.getElementById('bspkit-meta').textContent);
  const hash = readHash();
  let drawQueued = false, last = performance.now(), first = true;
  document.head.append(el('style', {}, CSS));
  const glb = await window.bspkitInflate('bspkit-glb');
  document.getElementById('bspkit-glb').remove();
  document.getElementById('bspkit-app').remove();

  const renderer = new WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.outputColorSpace = LinearSRGBColorSpace;
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setSize(window.innerWidth, window.innerHeight);
  document.body.append(renderer.domElement);

  const gltf = await new Promise((resolve, reject) =>
    new GLTFLoader().parse(glb.buffer, '', resolve, reject));
  const scene = new Scene();
  scene.background = new Color(BACKGROUND[0] / 255, BACKGROUND[1] / 255, BACKGROUND[2] / 255);
  scene.add(gltf.scene);
  scene.updateMatrixWorld(true);

  // Materials: one shader per glTF material and attribute set.
  const lightmaps = new Map();
  const lightmapTexture = async (index) => {
    if (!lightmaps.has(index)) {
      lightmaps.set(index, gltf.parser.getDependency('texture', index).then((t) => {
        t.colorSpace = NoColorSpace;
        t.magFilter = t.minFilter = LinearFilter;
        t.generateMipmaps = false;
        t.needsUpdate = true;
        return t;
      }));
    }
    return lightmaps.get(index);
  };
  const shaders = new Map();
  const shaderFor = async (m, hasUv1) => {
    const key = m.uuid + (hasUv1 ? '1' : '0');
    if (shaders.has(key)) return shaders.get(key);
    const defines = {};
    const uniforms = { map: { value: null }, lightmap: { value: null }, flatColor: { value: new Color(1, 1, 1) }, alphaTest: { value: m.alphaTest || 0 } };
    if (m.map) {
      m.map.colorSpace = NoColorSpace;
      m.map.magFilter = NearestFilter;
      m.map.minFilter = NearestMipmapNearestFilter;
      m.map.needsUpdate = true;
      uniforms.map.value = m.map;
      defines.USE_MAP = '';
    } else if (meta.textures !== false) {
      defines.USE_CHECKER = '';
    } else {
      uniforms.flatColor.value.copy(m.color);
    }
    const lm = m.userData && m.userData.lightmap;
    if (hasUv1) defines.USE_UV1 = '';
    if (lm && hasUv1 && Number.isInteger(lm.index)) {
      uniforms.lightmap.value = await lightmapTexture(lm.index);
      defines.USE_LIGHTMAP = '';
    }
    const s = new RawShaderMaterial({
      glslVersion: GLSL3, vertexShader: VERTEX, fragmentShader: FRAGMENT, defines, uniforms,
      side: m.side === DoubleSide ? DoubleSide : FrontSide,
    });
    s.name = m.name;
    s.userData = m.userData;
    shaders.set(key, s);
    return s;
  };

  const byKind = { sky: [], tool: [], trigger: [], nodraw: [], props: [], entities: [] };
  const meshes = [];
  const pending = [];
  gltf.scene.traverse((o) => {
    if (!o.isMesh) return;
    const source = o.material;
    const kind = kindOf(o, source);
    o.userData.kind = kind;
    o.userData.texture = source.name;
    if (kind) byKind[kind].push(o);
    meshes.push(o);
    pending.push(shaderFor(source, !!o.geometry.attributes.uv1).then((s) => { o.material = s; }));
  });
  await Promise.all(pending);

  // Bounds of the drawn world (kinds hidden by default left out).
  const bounds = new Box3();
  for (const m of meshes) if (!m.userData.kind) bounds.expandByObject(m);
  if (bounds.isEmpty()) bounds.setFromObject(gltf.scene);
  if (bounds.isEmpty()) bounds.set(new Vector3(-1, -1, -1), new Vector3(1, 1, 1));
  const size = bounds.getSize(new Vector3()).length() || 1;

  // Markers: point entities as small octahedra, props as boxes.
  const markers = [];
  const entityGeometry = new OctahedronGeometry(8 * SCALE);
  const propGeometry = new BoxGeometry(24 * SCALE, 24 * SCALE, 24 * SCALE);
  const entityMaterial = new MeshBasicMaterial({ color: 0xffc040 });
  const spawnMaterial = new MeshBasicMaterial({ color: 0x40ff60 });
  const lightMaterial = new MeshBasicMaterial({ color: 0xffffa0 });
  const propMaterial = new MeshBasicMaterial({ color: 0x40a0ff, wireframe: true });
  gltf.scene.traverse((o) => {
    if (o.isMesh || o.children.some((c) => c.isMesh) || !o.userData) return;
    const d = o.userData;
    let marker;
    if (d.prop_index !== undefined) {
      marker = new Mesh(propGeometry, propMaterial);
      byKind.props.push(marker);
    } else if (typeof d.classname === 'string' && !/^\*\d/.test(String(d.model || ''))) {
      const mat = /^info_player/.test(d.classname) ? spawnMaterial : /^light/.test(d.classname) ? lightMaterial : entityMaterial;
      marker = new Mesh(entityGeometry, mat);
      byKind.entities.push(marker);
    } else {
      return;
    }
    marker.userData = { marker: true, owner: o };
    o.getWorldPosition(marker.position);
    scene.add(marker);
    markers.push(marker);
  });

  // Camera: the fragment's, the spawn eye, else the whole map.
  const camera = new PerspectiveCamera(60, 1, SCALE, Math.max(100, size * 4));
  const state = { mode: 'fly', pos: [0, 0, 0], pitch: 0, yaw: 0, fov: 90 };
  const start = hash.camera || (meta.spawn ? { pos: meta.spawn.slice(0, 3), pitch: meta.spawn[3], yaw: meta.spawn[4], fov: meta.spawn[5] || 90 } : null);
  const orbit = new OrbitControls(camera, renderer.domElement);
  orbit.enabled = false;
  const applyFly = () => {
    const { fwd, up } = basis(state.pitch, state.yaw);
    const p = toWorld(...state.pos);
    camera.position.copy(p);
    camera.up.copy(toWorld(...up).divideScalar(SCALE));
    camera.lookAt(p.clone().add(toWorld(...fwd)));
  };
  const setFov = () => {
    const aspect = window.innerWidth / window.innerHeight;
    camera.aspect = aspect;
    camera.fov = 2 * Math.atan(Math.tan(state.fov * DEG / 2) / aspect) / DEG;
    camera.updateProjectionMatrix();
  };
  // Pitch and yaw of the camera's current direction, position in map units.
  const readCamera = () => {
    const d = camera.getWorldDirection(new Vector3());
    const [dx, dy, dz] = toMap(d).map((v) => v * SCALE);
    state.pos = toMap(camera.position);
    state.pitch = -Math.asin(Math.max(-1, Math.min(1, dz))) / DEG;
    state.yaw = Math.atan2(dy, dx) / DEG;
  };
  const setMode = (mode) => {
    if (mode === state.mode) return;
    if (mode === 'orbit') {
      readCamera();
      camera.up.set(0, 1, 0);
      const dir = camera.getWorldDirection(new Vector3());
      const centre = bounds.getCenter(new Vector3());
      const dist = Math.max(camera.position.distanceTo(centre), 64 * SCALE);
      orbit.target.copy(camera.position).addScaledVector(dir, dist);
      orbit.enabled = true;
      orbit.update();
    } else {
      readCamera();
      orbit.enabled = false;
      applyFly();
    }
    state.mode = mode;
    for (const b of document.querySelectorAll('[data-mode]')) b.disabled = b.dataset.mode === mode;
    requestDraw();
  };
  if (start) {
    state.pos = start.pos.slice();
    state.pitch = start.pitch;
    state.yaw = start.yaw;
    state.fov = start.fov;
    applyFly();
  } else {
    const centre = bounds.getCenter(new Vector3());
    const c = toMap(centre);
    const r = size / SCALE / 2 / Math.tan(45 * DEG);
    state.pitch = 30;
    state.yaw = 45;
    const { fwd } = basis(state.pitch, state.yaw);
    state.pos = c.map((v, i) => v - fwd[i] * r * 1.2);
    applyFly();
  }
  setFov();

  // Panels.
  const shown = { ...DEFAULT_SHOWN };
  const applyVisibility = () => {
    for (const k of KINDS) for (const o of byKind[k]) o.visible = shown[k];
    requestDraw();
  };
  const cameraText = el('div', { id: 'bk-camera' });
  const controls = el('div', { id: 'bk-controls', class: 'bk-panel' },
    el('h2', {}, meta.title || 'bspkit view'),
    el('div', {}, `${meta.name || meta.format}${meta.game ? ' · ' + meta.game : ''}`),
    ...KINDS.map((k) => {
      const box = el('input', { type: 'checkbox', 'data-kind': k, onchange: (e) => { shown[k] = e.target.checked; applyVisibility(); } });
      box.checked = shown[k];
      return el('label', {}, box, ` ${k === 'tool' ? 'tools' : k === 'trigger' ? 'triggers' : k} (${byKind[k].length})`);
    }),
    el('button', { 'data-mode': 'fly', onclick: () => setMode('fly') }, 'fly'),
    el('button', { 'data-mode': 'orbit', onclick: () => setMode('orbit') }, 'orbit'),
    el('div', { style: 'color:#aaa;font-size:11px;margin-top:4px' },
      'fly: drag to look, WASD / arrows move, Q/E or Space/C down/up, Shift faster; orbit: drag, wheel, right-drag. Click a face or marker for details.'),
    cameraText);
  const counts = Object.entries(meta.counts || {});
  const stats = el('div', { id: 'bk-stats', class: 'bk-panel' }, el('h2', {}, 'stats'),
    table([['format', meta.format], ['version', meta.version], ['entities', meta.entities ?? 'error'], ...counts,
      ['triangles', meta.export.triangles], ['materials', meta.export.materials], ['missing textures', meta.export.missing_textures],
      ['props', meta.export.props], ['glb bytes', meta.export.glb_bytes]]));
  const info = el('div', { id: 'bk-info', class: 'bk-panel bk-hidden' });
  document.getElementById('bspkit-status').remove();
  if (hash.ui) document.body.append(controls, stats, info);
  for (const b of document.querySelectorAll('[data-mode]')) b.disabled = b.dataset.mode === state.mode;
  applyVisibility();

  const showInfo = (hit) => {
    info.textContent = '';
    info.classList.remove('bk-hidden');
    const rows = [];
    let owner;
    if (hit.object.userData.marker) {
      owner = hit.object.userData.owner;
    } else {
      rows.push(['texture', hit.object.userData.texture], ['kind', hit.object.userData.kind || 'normal']);
      owner = ownerOf(hit.object);
    }
    const p = toMap(hit.point).map((v) => v.toFixed(1)).join(' ');
    rows.push(['point', p]);
    info.append(el('h2', {}, hit.object.userData.marker ? 'entity' : 'face'), table(rows));
    if (owner) {
      const kv = Object.entries(owner.userData).filter(([k]) => k !== 'kind' && k !== 'texture');
      info.append(el('h2', {}, owner.userData.prop_index !== undefined ? 'static prop' : 'key/values'),
        table(kv.map(([k, v]) => [k, Array.isArray(v) ? v.join('\n') : typeof v === 'object' ? JSON.stringify(v) : v])));
    }
    window.bspkitView.selected = { texture: hit.object.userData.marker ? null : hit.object.userData.texture, values: owner ? owner.userData : null };
  };

  // Picking: a click that did not drag.
  const raycaster = new Raycaster();
  let down = null;
  renderer.domElement.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
  renderer.domElement.addEventListener('pointerup', (e) => {
    if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
    const ndc = new Vector2(e.clientX / window.innerWidth * 2 - 1, -(e.clientY / window.innerHeight) * 2 + 1);
    raycaster.setFromCamera(ndc, camera);
    const targets = [...meshes, ...markers].filter((o) => {
      for (let p = o; p; p = p.parent) if (!p.visible) return false;
      return true;
    });
    const hits = raycaster.intersectObjects(targets, false).filter((h) => h.object.userData.marker || !h.face ||
      h.object.material.side === DoubleSide || h.face.normal.clone().transformDirection(h.object.matrixWorld).dot(raycaster.ray.direction) < 0);
    if (hits.length) showInfo(hits[0]);
    else info.classList.add('bk-hidden');
  });

  // Fly controls.
  const keys = new Set();
  window.addEventListener('keydown', (e) => { if (e.target === document.body) keys.add(e.code); label.style.display = 'none'; requestDraw(); });
  window.addEventListener('keyup', (e) => keys.delete(e.code));
  window.addEventListener('blur', () => keys.clear());
  renderer.domElement.addEventListener('pointermove', (e) => {
    if (state.mode !== 'fly' || !(e.buttons & 1)) return;
    state.yaw -= e.movementX * 0.2;
    state.pitch = Math.max(-89, Math.min(89, state.pitch + e.movementY * 0.2));
    applyFly();
    requestDraw();
  });
  // Hover labels on markers: a prop's model, an entity's classname (and targetname).
  const label = el('div', { style: 'position:fixed;pointer-events:none;background:rgba(0,0,0,.75);padding:1px 5px;border-radius:3px;font-size:12px;display:none' });
  document.body.append(label);
  let hoverQueued = null;
  renderer.domElement.addEventListener('pointermove', (e) => {
    if (e.buttons) { label.style.display = 'none'; return; }
    if (!hoverQueued) requestAnimationFrame(() => {
      const ev = hoverQueued;
      hoverQueued = null;
      raycaster.setFromCamera(new Vector2(ev.clientX / window.innerWidth * 2 - 1, -(ev.clientY / window.innerHeight) * 2 + 1), camera);
      const hit = raycaster.intersectObjects(markers.filter((m) => m.visible), false)[0];
      if (!hit) { label.style.display = 'none'; return; }
      const d = hit.object.userData.owner.userData;
      label.textContent = d.prop_index !== undefined ? String(d.model).replace(/^.*\//, '') : d.classname + (d.targetname ? ` (${d.targetname})` : '');
      label.style.left = `${ev.clientX + 12}px`;
      label.style.top = `${ev.clientY + 12}px`;
      label.style.display = '';
    });
    hoverQueued = e;
  });
  orbit.addEventListener('change', () => requestDraw());
  window.addEventListener('hashchange', () => {
    const c = readHash().camera;
    label.style.display = 'none';
    if (!c) return;
    setMode('fly');
    Object.assign(state, { pos: c.pos.slice(), pitch: c.pitch, yaw: c.yaw, fov: c.fov });
    applyFly();
    setFov();
    requestDraw();
  });
  window.addEventListener('resize', () => { renderer.setSize(window.innerWidth, window.innerHeight); setFov(); requestDraw(); });

  function requestDraw() {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(frame);
  }
  function frame(now) {
    drawQueued = false;
    const dt = Math.min(0.1, (now - last) / 1000);
    last = now;
    if (state.mode === 'fly' && keys.size) {
      const speed = (keys.has('ShiftLeft') || keys.has('ShiftRight') ? 1600 : 400) * dt;
      const { fwd } = basis(state.pitch, state.yaw);
      const right = [Math.sin(state.yaw * DEG), -Math.cos(state.yaw * DEG), 0];
      const move = (v, s) => { for (let i = 0; i < 3; i++) state.pos[i] += v[i] * s * speed; };
      if (keys.has('KeyW') || keys.has('ArrowUp')) move(fwd, 1);
      if (keys.has('KeyS') || keys.has('ArrowDown')) move(fwd, -1);
      if (keys.has('KeyD') || keys.has('ArrowRight')) move(right, 1);
      if (keys.has('KeyA') || keys.has('ArrowLeft')) move(right, -1);
      if (keys.has('KeyE') || keys.has('Space')) move([0, 0, 1], 1);
      if (keys.has('KeyQ') || keys.has('KeyC')) move([0, 0, 1], -1);
      applyFly();
    }
    if (state.mode === 'orbit') readCamera();
    cameraText.textContent = '#camera=' + [...state.pos, state.pitch, state.yaw].map((v) => +v.toFixed(2)).join(',') + ',' + state.fov;
    renderer.render(scene, camera);
    if (first) {
      first = false;
      document.body.dataset.ready = '1';
    }
    if (keys.size) requestDraw();
  }

  // For scripts and tests: the scene's objects and where a point is on screen.
  window.bspkitView = {
    meta, shown, selected: null,
    markers: () => markers.map((m) => ({ kind: m.userData.owner.userData.prop_index !== undefined ? 'prop' : 'entity', values: m.userData.owner.userData })),
    // Pixel position of marker i (CSS pixels), or null when behind the camera.
    markerOnScreen: (i) => {
      const v = markers[i].getWorldPosition(new Vector3()).project(camera);
      if (v.z > 1 || v.z < -1) return null;
      return [(v.x + 1) / 2 * window.innerWidth, (1 - v.y) / 2 * window.innerHeight];
    },
    setShown: (kind, on) => { shown[kind] = on; for (const b of document.querySelectorAll(`[data-kind="${kind}"]`)) b.checked = on; applyVisibility(); },
    camera: () => ({ pos: state.pos.slice(), pitch: state.pitch, yaw: state.yaw, fov: state.fov }),
  };
  requestDraw();
}

main().catch((e) => {
  document.body.dataset.error = String(e && e.stack || e);
  const s = document.getElementById('bspkit-status');
  if (s) s.textContent = 'bspkit view: ' + e;
  throw e;
});
