#!/usr/bin/env node
// Validate glTF/GLB files with the Khronos glTF validator.
//   node validate.js FILE...
// Prints one summary line per file, every error and warning, and the
// number of infos and hints per code. Exits 1 when any file has an error or cannot
// be read, 2 when the validator is not installed.
'use strict';
const fs = require('fs');
const path = require('path');

let validator;
try {
  validator = require('gltf-validator');
} catch (e) {
  console.error('validate.js: gltf-validator is not installed in ' + __dirname +
                '/node_modules; run scripts/install-deps.sh');
  process.exit(2);
}

const SEVERITY = ['error', 'warning', 'info', 'hint'];

async function validate(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) => new Promise((resolve, reject) => {
      fs.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)), (err, data) => {
        if (err) reject(err.toString()); else resolve(new Uint8Array(data));
      });
    }),
  });
  const is = report.issues;
  console.log(`${file}: ${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ${is.numHints} hints`);
  const quiet = {};
  for (const m of is.messages) {
    if (m.severity <= 1)
      console.log(`  ${SEVERITY[m.severity]} ${m.code} ${m.pointer || ''}: ${m.message}`);
    else
      quiet[m.code] = (quiet[m.code] || 0) + 1;
  }
  for (const code of Object.keys(quiet))
    console.log(`  ${quiet[code]} x ${code}`);
  totals.errors += is.numErrors;
  totals.warnings += is.numWarnings;
  totals.infos += is.numInfos;
  totals.hints += is.numHints;
  return is.numErrors;
}

const totals = {errors: 0, warnings: 0, infos: 0, hints: 0};

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('usage: node validate.js FILE...');
    process.exit(64);
  }
  let bad = 0;
  for (const f of files) {
    try {
      if (await validate(f) > 0) bad++;
    } catch (e) {
      console.log(`${f}: cannot validate: ${e}`);
      bad++;
    }
  }
  console.log(`total: ${totals.errors} errors, ${totals.warnings} warnings, ${totals.infos} infos, ` +
              `${totals.hints} hints over ${files.length} files`);
  process.exit(bad ? 1 : 0);
})();
