#!/usr/bin/env node
// Loads Roo Code's bundled extension (src/dist/extension.js) outside VS Code, with a stub
// `vscode` module, and checks that it exports `activate` (and `deactivate`): the patched
// extension's module graph, our dist/roo-code.cjs included, evaluates without throwing.
// Used by scripts/check-roo-patch.sh --full.
//
//   node scripts/roo-load-check.cjs <roo>/src/dist/extension.js
'use strict';
const Module = require('node:module');
const path = require('node:path');

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/roo-load-check.cjs <path to Roo src/dist/extension.js>');
  process.exit(2);
}

/** A stand-in for any vscode API: callable, constructible, every property another stand-in. */
function stub(name) {
  const target = function () {};
  return new Proxy(target, {
    get(t, prop) {
      if (prop === Symbol.toPrimitive) return () => name;
      if (prop === 'then') return undefined; // not a promise
      if (prop === 'prototype') return t.prototype;
      if (typeof prop === 'symbol') return undefined;
      if (!(prop in t)) t[prop] = stub(`${name}.${String(prop)}`);
      return t[prop];
    },
    apply: () => stub(`${name}()`),
    construct: () => stub(`new ${name}`),
  });
}

// esbuild's __toESM copies own properties onto Object.create(prototype of the module): keep the
// stand-in on the prototype so every lookup reaches it.
const vscode = Object.create(stub('vscode'));
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'vscode') return vscode;
  return load.call(this, request, parent, isMain);
};

// Which build of intent-governance esbuild took: the export's `module` condition, dist/roo-code.cjs.
const fs = require('node:fs');
if (fs.existsSync(`${file}.map`)) {
  const sources = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')).sources;
  const ours = sources.filter((s) => /roo-code\.cjs$|intent-governance|[\\/]dist[\\/]lib[\\/]agents[\\/]/.test(s));
  console.log(`intent-governance in the bundle: ${ours.map((s) => s.replace(/^.*?(dist[\\/])/, '$1')).join(', ') || 'nothing'}`);
  if (!ours.some((s) => /dist[\\/]roo-code\.cjs$/.test(s)) || ours.some((s) => /[\\/]dist[\\/]lib[\\/]/.test(s))) {
    console.error('FAILED: the bundle should contain dist/roo-code.cjs and none of dist/lib/');
    process.exit(1);
  }
}

const ext = require(path.resolve(file));
const exported = Object.keys(ext).sort();
console.log(`exports: ${exported.join(', ')}`);
if (typeof ext.activate !== 'function') {
  console.error('FAILED: the bundle has no activate function');
  process.exit(1);
}
console.log(`ok: activate is a function (deactivate: ${typeof ext.deactivate})`);
process.exit(0);
