// Libraries of the SillyTavern compat runtime that are evaluated when an
// extension first uses them, not with the runtime's chunk at every window
// start with a page extension on. An ES import would run them with the
// chunk; a require inside a function is one the bundler runs only when the
// function is first called. Measured by the desktop self-test's page bench
// (WebKitGTK, DEVELOPING.md):
//
//   - lodash (`_`, SillyTavern.libs.lodash, /lib.js's lodash; runtime.ts,
//     backing.ts): 8–25 ms of the start, and most extensions never call it.
//   - Handlebars' parser (template.ts): its module builds the parser's
//     tables when it runs; only an extension that renders a template pays.
'use strict';

let lodash;
let parse;

exports.loadLodash = function loadLodash() {
  if (lodash === undefined) lodash = require('lodash');
  return lodash;
};

exports.loadHandlebarsParser = function loadHandlebarsParser() {
  if (parse === undefined) parse = require('@handlebars/parser').parse;
  return parse;
};
