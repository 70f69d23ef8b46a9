// bspkit view in a real browser: headless Chromium (Debian's /usr/bin/chromium,
// WebGL through SwiftShader) driven by playwright-core from viewer/node_modules.
// For sample maps of several families: the page loads from a file:// URL
// without console or page errors; its picture is not blank and agrees with
// `bspkit render` from the same camera (and a wrong camera does not); the
// stats panel gives `bspkit info --json`'s counts; there is one marker per
// point entity of `bspkit ent --json`, and clicking one shows its key/values;
// clicking a face names one of `bspkit tex list --json`'s textures. Two real
// maps from ../shared/maps (when present) agree with render's spawn view too.
//
//   node view_page_test.mjs BSPKIT SOURCE_DIR
// Exit 77 (skipped) when chromium or playwright-core is missing, or when this
// bspkit was built without the viewer script.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bspkit = resolve(process.argv[2]), sourceDir = resolve(process.argv[3]);
const CHROMIUM = process.env.BSPKIT_CHROMIUM || '/usr/bin/chromium';
const viewerDir = join(sourceDir, 'viewer');
if (!existsSync(CHROMIUM)) {
  console.log(`skipped: ${CHROMIUM} not found (Debian package chromium)`);
  process.exit(77);
}
let chromium;
try {
  ({ chromium } = createRequire(join(viewerDir, 'package.json'))('playwright-core'));
} catch {
  console.log('skipped: playwright-core is not installed (npm ci in viewer/)');
  process.exit(77);
}

{
  // A bspkit built without the viewer script (no npm ci in viewer/) says so.
  const probe = mkdtempSync(join(tmpdir(), 'bspkit-view-probe-'));
  execFileSync(bspkit, ['generate', 'quake-room', '-o', join(probe, 'q.bsp')]);
  try {
    execFileSync(bspkit, ['view', join(probe, 'q.bsp'), '-o', join(probe, 'q.html')], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    if (String(e.stderr).includes('without the viewer script')) {
      console.log('skipped: ' + String(e.stderr).trim());
      process.exit(77);
    }
    throw e;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const W = 320, H = 180;
// Agreement bounds on the 32 x 18 grey images (10 x 10 pixel box means):
// mean absolute difference in grey levels, and Pearson correlation.
const MAX_MAD = 3, MIN_CORR = 0.98;
const MAPS = ['goldsrc-room', 'source-room', 'quake3-room', 'quake-room'];

const work = mkdtempSync(join(tmpdir(), 'bspkit-view-test-'));
const run = (...args) => execFileSync(bspkit, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
};

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
});

// Open the page at `hash`; returns the page and the errors it reported.
async function open(html, hash) {
  const page = await browser.newPage({ viewport: { width: W, height: H }, deviceScaleFactor: 1 });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.goto('file://' + html + hash);
  await page.waitForFunction(() => document.body.dataset.ready === '1' || document.body.dataset.error, null,
    { timeout: 120000 });
  const error = await page.evaluate(() => document.body.dataset.error);
  if (error) errors.push(`dataset.error: ${error}`);
  return { page, errors };
}

// Grey 32 x 18 images of two PNGs (decoded by the browser) and their agreement.
async function compare(page, pngA, pngB) {
  const url = (b) => 'data:image/png;base64,' + b.toString('base64');
  return page.evaluate(async ([a, b, w, h]) => {
    const grey = async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = w;
      c.height = h;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, w, h).data;
      const out = new Float64Array((w / 10) * (h / 10));
      let min = 255, max = 0;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const i = (y * w + x) * 4;
          const v = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
          min = Math.min(min, v);
          max = Math.max(max, v);
          out[Math.floor(y / 10) * (w / 10) + Math.floor(x / 10)] += v / 100;
        }
      }
      return { out, range: max - min };
    };
    const A = await grey(a), B = await grey(b);
    const n = A.out.length;
    let mad = 0, ma = 0, mb = 0;
    for (let i = 0; i < n; i++) { mad += Math.abs(A.out[i] - B.out[i]) / n; ma += A.out[i] / n; mb += B.out[i] / n; }
    let sab = 0, saa = 0, sbb = 0;
    for (let i = 0; i < n; i++) {
      sab += (A.out[i] - ma) * (B.out[i] - mb);
      saa += (A.out[i] - ma) ** 2;
      sbb += (B.out[i] - mb) ** 2;
    }
    return { mad, corr: sab / Math.sqrt(saa * sbb || 1), rangeA: A.range };
  }, [url(pngA), url(pngB), W, H]);
}

const number = (s) => s.trim().split(/\s+/).map(Number);

try {
  for (const name of MAPS) {
    const map = join(work, `${name}.bsp`), html = join(work, `${name}.html`);
    run('generate', name, '-o', map);
    run('view', map, '-o', html);
    const info = JSON.parse(run('info', map, '--json'));
    const ents = JSON.parse(run('ent', map, '--json'));
    const textures = JSON.parse(run('tex', map, 'list', '--json')).textures.map((t) => t.name);
    const spawn = ents.find((e) => e.classname === 'info_player_start' || e.classname === 'info_player_deathmatch');
    const [sx, sy, sz] = number(spawn.origin);
    const syaw = spawn.angles ? number(spawn.angles)[1] : Number(spawn.angle || 0);

    // A camera of our own: over the spawn, turned and looking down a little.
    const cam = [sx, sy, sz + 30, 20, syaw + 35, 100];
    const wrong = [sx, sy, sz + 30, -10, syaw + 125, 100];
    const png = (c, tag) => {
      const file = join(work, `${name}-${tag}.png`);
      run('render', map, '-o', file, '--size', `${W}x${H}`, ...(c ? ['--camera', c.join(' ')] : []));
      return readFileSync(file);
    };
    const rendered = png(cam, 'cam'), renderedWrong = png(wrong, 'wrong'), renderedSpawn = png(null, 'spawn');

    const { page, errors } = await open(html, `#camera=${cam.join(',')}&ui=0`);
    check(errors.length === 0, `${name}: page loads without errors${errors.length ? ': ' + errors.join('; ') : ''}`);
    const shot = await page.screenshot();
    const same = await compare(page, shot, rendered);
    const other = await compare(page, shot, renderedWrong);
    console.log(`     ${name}: screenshot vs render, same camera: mad ${same.mad.toFixed(2)} corr ${same.corr.toFixed(4)};` +
      ` wrong camera: mad ${other.mad.toFixed(2)} corr ${other.corr.toFixed(4)}`);
    check(same.rangeA > 20, `${name}: the picture is not blank (grey range ${same.rangeA.toFixed(0)})`);
    check(same.mad <= MAX_MAD && same.corr >= MIN_CORR, `${name}: agrees with bspkit render --camera (mad <= ${MAX_MAD}, corr >= ${MIN_CORR})`);
    check(!(other.mad <= MAX_MAD && other.corr >= MIN_CORR), `${name}: a wrong camera does not agree`);
    await page.close();

    // Default camera: the spawn eye, as render --view spawn; with the panels.
    const def = await open(html, '');
    check(def.errors.length === 0, `${name}: default view loads without errors${def.errors.length ? ': ' + def.errors.join('; ') : ''}`);
    await def.page.evaluate(() => { for (const p of document.querySelectorAll('.bk-panel')) p.style.display = 'none'; });
    const spawnShot = await def.page.screenshot();
    const sp = await compare(def.page, spawnShot, renderedSpawn);
    console.log(`     ${name}: default view vs render --view spawn: mad ${sp.mad.toFixed(2)} corr ${sp.corr.toFixed(4)}`);
    check(sp.mad <= MAX_MAD && sp.corr >= MIN_CORR, `${name}: the default view is the spawn eye`);
    await def.page.evaluate(() => { for (const p of document.querySelectorAll('.bk-panel')) p.style.display = ''; });

    // Stats panel against info --json.
    const panel = await def.page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#bk-stats tr')]
      .map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent])));
    check(Number(panel.entities) === info.entities, `${name}: stats panel entities ${panel.entities} = info --json ${info.entities}`);
    const keys = Object.keys(info.counts).filter((k) => info.counts[k] !== null);
    const wrongCounts = keys.filter((k) => Number(panel[k]) !== info.counts[k]);
    check(keys.length > 0 && wrongCounts.length === 0, `${name}: stats panel has info --json's ${keys.length} counts${wrongCounts.length ? ' (differ: ' + wrongCounts.join(', ') + ')' : ''}`);

    // Markers: one per point entity (not worldspawn, no "*N" model).
    const points = ents.filter((e) => e.classname && e.classname !== 'worldspawn' && !/^\*\d/.test(e.model || ''));
    const markers = await def.page.evaluate(() => window.bspkitView.markers().filter((m) => m.kind === 'entity').map((m) => m.values.classname));
    check(JSON.stringify(markers.slice().sort()) === JSON.stringify(points.map((e) => e.classname).sort()),
      `${name}: entity markers ${markers.length} = point entities of ent --json ${points.length}`);

    // Click a face in the middle of the spawn view (the small viewport's
    // panels moved out of the way).
    const hidePanels = (p) => p.evaluate(() => { for (const e of document.querySelectorAll('#bk-controls, #bk-stats')) e.style.display = 'none'; });
    await hidePanels(def.page);
    await def.page.mouse.click(W / 2, H / 2);
    const face = await def.page.evaluate(() => window.bspkitView.selected && window.bspkitView.selected.texture);
    const faceShown = await def.page.evaluate(() => document.querySelector('#bk-info td')?.textContent);
    check(face && textures.includes(face) && faceShown === face, `${name}: clicking a face names its texture (${face})`);
    await def.page.close();

    // Click the light's marker from 96 units in front of it.
    const light = ents.find((e) => e.classname === 'light');
    const [lx, ly, lz] = number(light.origin);
    const near = await open(html, `#camera=${lx - 96},${ly},${lz + 48},26.565,0,90`);
    await hidePanels(near.page);
    await near.page.mouse.click(W / 2, H / 2);
    const picked = await near.page.evaluate(() => {
      const s = window.bspkitView.selected;
      const text = document.querySelector('#bk-info')?.textContent || '';
      return { values: s && s.values, text };
    });
    const lightKeys = Object.entries(light).every(([k, v]) => picked.values && picked.values[k] === v && picked.text.includes(v));
    check(lightKeys, `${name}: clicking the light's marker shows its key/values`);
    await near.page.close();
  }

  // Real maps from the shared corpus, when present: the default (spawn) view
  // with the markers hidden against render --view spawn, and one prop marker
  // per static prop record of `bspkit dump MAP sprp --json`.
  const corpus = join(sourceDir, '..', 'shared', 'maps');
  const REAL = ['lanofdoom+counterstrikesource-maps/nightly/cstrike/maps/gg_autumn.bsp',
    'barnuri+cs1.6-server/maps/de_complex.bsp'];
  for (const rel of REAL) {
    const map = join(corpus, rel), name = rel.replace(/^.*\//, ''), html = join(work, `${name}.html`);
    if (!existsSync(map)) {
      console.log(`note: corpus map not present: ${rel}`);
      continue;
    }
    run('view', map, '-o', html);
    run('render', map, '-o', join(work, `${name}.png`), '--size', `${W}x${H}`);
    const { page, errors } = await open(html, '#ui=0');
    check(errors.length === 0, `${name}: page loads without errors${errors.length ? ': ' + errors.join('; ') : ''}`);
    await page.evaluate(() => { window.bspkitView.setShown('props', false); window.bspkitView.setShown('entities', false); });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const cmp = await compare(page, await page.screenshot(), readFileSync(join(work, `${name}.png`)));
    console.log(`     ${name}: default view vs render --view spawn: mad ${cmp.mad.toFixed(2)} corr ${cmp.corr.toFixed(4)}`);
    check(cmp.mad <= MAX_MAD && cmp.corr >= MIN_CORR, `${name}: agrees with bspkit render --view spawn`);
    const props = await page.evaluate(() => window.bspkitView.markers().filter((m) => m.kind === 'prop').length);
    let records = 0;
    if (/gg_autumn/.test(name))
      records = JSON.parse(run('dump', map, 'sprp', '--json')).tables.find((t) => t.name === 'props').count;
    check(props === records, `${name}: prop markers ${props} = static prop records ${records}`);
    await page.close();
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(failures ? `${failures} checks failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
