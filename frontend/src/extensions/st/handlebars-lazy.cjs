// Handlebars' parser for the SillyTavern compat runtime's templates
// (template.ts), evaluated the first time an extension renders one. Its
// module builds the parser's tables when it runs, which an ES import would
// do with the runtime's chunk at every window start with a page extension
// on; a require inside a function is one the bundler runs only when the
// function is first called (as lodash-lazy.cjs does for lodash).
'use strict';

let parse;

module.exports = function loadHandlebarsParser() {
  if (parse === undefined) parse = require('@handlebars/parser').parse;
  return parse;
};
