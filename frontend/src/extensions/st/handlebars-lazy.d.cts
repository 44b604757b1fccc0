import type { parse } from '@handlebars/parser';

declare function loadHandlebarsParser(): typeof parse;
export = loadHandlebarsParser;
