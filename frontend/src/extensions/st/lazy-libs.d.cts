import type { parse } from '@handlebars/parser';
import type { LoDashStatic } from 'lodash';

export declare function loadLodash(): LoDashStatic;
export declare function loadHandlebarsParser(): typeof parse;
