import type { LoDashStatic } from 'lodash';

declare function loadLodash(): LoDashStatic;
export = loadLodash;
