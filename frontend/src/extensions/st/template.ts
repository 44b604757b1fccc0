// Handlebars templates as SillyTavern renders an extension's .html files
// (renderExtensionTemplateAsync): parsed by Handlebars' own parser, then
// evaluated here over the AST. Handlebars' compiler turns templates into
// JavaScript with new Function, which the window's policy forbids
// (script-src 'self', no 'unsafe-eval'); evaluating the AST gives the
// same output for what extension templates use: {{path}}, {{{raw}}},
// ../ and @data paths, literals, sub-expressions, the built-in helpers
// if / unless / each / with / lookup / log, `as |x i|` block params,
// mustache-style sections and comments. Partials and custom helpers are
// not there and throw naming themselves. Like Handlebars since 4.6, only
// own properties are read (no prototype walks). The parser is evaluated
// when the first template is compiled (lazy-libs.cjs).
import type { AST } from '@handlebars/parser';
import { loadHandlebarsParser } from './lazy-libs.cjs';

/** Bounds on hostile templates: nesting of blocks and output size. */
const MAX_DEPTH = 64;
const MAX_OUTPUT = 4 << 20;

interface Frame {
  ctx: unknown;
  data: Record<string, unknown>;
  params: Record<string, unknown>;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;' };

/** escapeExpression is Handlebars' escaping: null and undefined are empty, other values their string. */
export function escapeExpression(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return s.replace(/[&<>"'`=]/g, (c) => ESCAPES[c]!);
}

function own(obj: unknown, key: string): unknown {
  if (obj === null || obj === undefined) return undefined;
  if (typeof obj !== 'object' && typeof obj !== 'function') {
    return key === 'length' && typeof obj === 'string' ? obj.length : undefined;
  }
  if (Array.isArray(obj) && key === 'length') return obj.length;
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** isEmpty is Handlebars' falsiness for if/unless/with/each: falsy or an empty array. */
function isEmpty(v: unknown): boolean {
  return (!v && v !== 0) || (Array.isArray(v) && v.length === 0);
}

/** CompiledTemplate renders with data. */
export type CompiledTemplate = (data?: unknown) => string;

/** compileTemplate parses once (syntax errors throw here) and renders many times. */
export function compileTemplate(source: string): CompiledTemplate {
  const program = loadHandlebarsParser()(source);
  return (data?: unknown) => {
    const out: string[] = [];
    let size = 0;
    const emit = (s: string) => {
      size += s.length;
      if (size > MAX_OUTPUT) throw new Error(`template output is over ${MAX_OUTPUT} characters`);
      out.push(s);
    };
    const root: Frame = { ctx: data ?? {}, data: { root: data ?? {} }, params: {} };
    runProgram(program, [root], emit, 0);
    return out.join('');
  };
}

function runProgram(p: AST.Program | undefined, stack: Frame[], emit: (s: string) => void, depth: number): void {
  if (!p) return;
  if (depth > MAX_DEPTH) throw new Error(`template blocks nest deeper than ${MAX_DEPTH}`);
  for (const st of p.body) {
    switch (st.type) {
      case 'ContentStatement':
        emit((st as AST.ContentStatement).value);
        break;
      case 'CommentStatement':
        break;
      case 'MustacheStatement': {
        const m = st as AST.MustacheStatement;
        const v = evalCall(m.path, m.params, m.hash, stack);
        emit(m.escaped ? escapeExpression(v) : v === null || v === undefined ? '' : String(v));
        break;
      }
      case 'BlockStatement':
        runBlock(st as AST.BlockStatement, stack, emit, depth + 1);
        break;
      default:
        throw new Error(`${st.type} is not supported in Hearth's templates`);
    }
  }
}

function top(stack: Frame[]): Frame {
  return stack[stack.length - 1]!;
}

function resolvePath(path: AST.PathExpression, stack: Frame[]): unknown {
  const parts = path.parts as string[];
  if (path.data) {
    let frame = top(stack);
    for (let i = 0; i < path.depth && stack.length - 1 - i > 0; i++) frame = stack[stack.length - 2 - i]!;
    let v = own(frame.data, parts[0]!);
    for (const k of parts.slice(1)) v = own(v, k);
    return v;
  }
  if (path.depth === 0 && parts.length > 0) {
    // Block params shadow context properties, innermost first.
    for (let i = stack.length - 1; i >= 0; i--) {
      if (Object.prototype.hasOwnProperty.call(stack[i]!.params, parts[0]!)) {
        let v = stack[i]!.params[parts[0]!];
        for (const k of parts.slice(1)) v = own(v, k);
        return v;
      }
    }
  }
  const frame = stack[Math.max(0, stack.length - 1 - path.depth)]!;
  let v = frame.ctx;
  for (const k of parts) v = own(v, k);
  return v;
}

function evalExpr(e: AST.Expression, stack: Frame[]): unknown {
  switch (e.type) {
    case 'PathExpression':
      return resolvePath(e as AST.PathExpression, stack);
    case 'SubExpression': {
      const s = e as AST.SubExpression;
      return evalCall(s.path, s.params, s.hash, stack);
    }
    case 'StringLiteral':
    case 'NumberLiteral':
    case 'BooleanLiteral':
      return (e as AST.StringLiteral).value;
    case 'NullLiteral':
      return null;
    case 'UndefinedLiteral':
      return undefined;
    default:
      throw new Error(`${e.type} is not supported in Hearth's templates`);
  }
}

function hashOf(h: AST.Hash | undefined, stack: Frame[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of h?.pairs ?? []) out[pair.key] = evalExpr(pair.value, stack);
  return out;
}

function helperName(path: AST.Expression): string | null {
  if (path.type !== 'PathExpression') return null;
  const p = path as AST.PathExpression;
  return !p.data && p.depth === 0 && p.parts.length === 1 && typeof p.parts[0] === 'string' ? (p.parts[0] as string) : null;
}

/** evalCall is a mustache or sub-expression: a built-in helper, or a value (a function in it called with the context). */
function evalCall(path: AST.Expression, params: AST.Expression[], hash: AST.Hash | undefined, stack: Frame[]): unknown {
  const name = helperName(path);
  if (name === 'lookup' && params.length >= 2) return own(evalExpr(params[0]!, stack), String(evalExpr(params[1]!, stack)));
  if (name === 'log') {
    console.log(...params.map((p) => evalExpr(p, stack)));
    return '';
  }
  if (name && (name === 'if' || name === 'unless' || name === 'each' || name === 'with')) {
    throw new Error(`{{${name}}} needs a block: {{#${name} …}}`);
  }
  if (path.type !== 'PathExpression') return evalExpr(path, stack);
  const v = resolvePath(path as AST.PathExpression, stack);
  if (params.length > 0 || (hash?.pairs.length ?? 0) > 0) {
    if (typeof v !== 'function') throw new Error(`Missing helper: "${(path as AST.PathExpression).original}"`);
    return v.call(top(stack).ctx, ...params.map((p) => evalExpr(p, stack)), { hash: hashOf(hash, stack) });
  }
  return typeof v === 'function' ? v.call(top(stack).ctx) : v;
}

function child(stack: Frame[], ctx: unknown, data?: Record<string, unknown>, params?: Record<string, unknown>): Frame[] {
  const parent = top(stack);
  return [...stack, { ctx, data: { ...parent.data, ...data, _parent: parent.data }, params: params ?? {} }];
}

function runBlock(b: AST.BlockStatement, stack: Frame[], emit: (s: string) => void, depth: number): void {
  const name = helperName(b.path);
  const arg = () => (b.params.length > 0 ? evalExpr(b.params[0]!, stack) : undefined);
  const blockParams = b.program?.blockParams ?? [];
  switch (name) {
    case 'if':
    case 'unless': {
      const v = arg();
      const truthy = hashOf(b.hash, stack).includeZero === true && v === 0 ? true : !isEmpty(v);
      runProgram(truthy === (name === 'if') ? b.program : b.inverse, stack, emit, depth);
      return;
    }
    case 'with': {
      const v = arg();
      if (isEmpty(v)) runProgram(b.inverse, stack, emit, depth);
      else runProgram(b.program, child(stack, v, {}, blockParams[0] ? { [blockParams[0]]: v } : {}), emit, depth);
      return;
    }
    case 'each':
      each(arg(), b, stack, emit, depth);
      return;
  }
  // A section: an array iterates, an object becomes the context, true renders, a falsy or empty value renders the inverse.
  const v = resolvePath(b.path, stack);
  if (typeof v === 'function' && b.params.length > 0) throw new Error(`Missing helper: "${b.path.original}"`);
  if (Array.isArray(v)) each(v, b, stack, emit, depth);
  else if (isEmpty(v)) runProgram(b.inverse, stack, emit, depth);
  else if (v === true) runProgram(b.program, stack, emit, depth);
  else runProgram(b.program, child(stack, v), emit, depth);
}

function each(v: unknown, b: AST.BlockStatement, stack: Frame[], emit: (s: string) => void, depth: number): void {
  const [itemName, indexName] = b.program?.blockParams ?? [];
  const items: [string | number, unknown][] = Array.isArray(v)
    ? v.map((x, i) => [i, x])
    : v && typeof v === 'object'
      ? Object.keys(v).map((k) => [k, (v as Record<string, unknown>)[k]])
      : [];
  if (items.length === 0) {
    runProgram(b.inverse, stack, emit, depth);
    return;
  }
  items.forEach(([key, item], i) => {
    const data: Record<string, unknown> = { index: i, first: i === 0, last: i === items.length - 1 };
    if (!Array.isArray(v)) data.key = key;
    const params: Record<string, unknown> = {};
    if (itemName) params[itemName] = item;
    if (indexName) params[indexName] = key;
    runProgram(b.program, child(stack, item, data, params), emit, depth);
  });
}
