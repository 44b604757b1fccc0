// lodash for the SillyTavern compat runtime (runtime.ts, backing.ts),
// evaluated the first time an extension uses `_`, SillyTavern.libs.lodash
// or /lib.js's lodash. Evaluating lodash costs the window's start 8–25 ms
// (WebKitGTK, measured by the desktop self-test's page bench) and most
// extensions never call it. An ES import would run it with the runtime's
// chunk; a require inside a function is one the bundler runs only when the
// function is first called.
'use strict';

let lodash;

module.exports = function loadLodash() {
  if (lodash === undefined) lodash = require('lodash');
  return lodash;
};
