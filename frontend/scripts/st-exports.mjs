// st-exports reads SillyTavern's frontend modules and writes the names each
// one exports, with what kind of binding each is, to
// backend/extensions/stcompat/st-exports.json. Hearth's compat modules export
// exactly these names (EXTENSIONS.md §5), so an extension that imports any
// of them links. Run it by hand against a SillyTavern checkout when the
// compatibility level moves:
//
//   node scripts/st-exports.mjs <ST frontend root> <version> "<where it came from>"
//
// where the root is SillyTavern's public/ folder (or a fork's copy of it).
// It parses with acorn (svelte's parser) and never runs the code.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';

/** The module paths Hearth serves (EXTENSIONS.md §5), relative to the frontend root. */
export const COMPAT_PATHS = [
  'script.js',
  'lib.js',
  'scripts/extensions.js',
  'scripts/group-chats.js',
  'scripts/power-user.js',
  'scripts/world-info.js',
  'scripts/utils.js',
  'scripts/popup.js',
  'scripts/i18n.js',
  'scripts/slash-commands.js',
  // Beyond the contract's list: modules real extensions import by path
  // (Extension-MessageLimit, Dialogue Colorizer and most extensions that
  // add slash commands), so they link too.
  'lib/eventemitter.js',
  'scripts/slash-commands/SlashCommand.js',
  'scripts/slash-commands/SlashCommandArgument.js',
  'scripts/slash-commands/SlashCommandCommonEnumsProvider.js',
  'scripts/slash-commands/SlashCommandEnumValue.js',
  'scripts/slash-commands/SlashCommandParser.js',
];

/**
 * literal returns the JSON value of an object, array or literal node;
 * parts that are not literals (references, calls, undefined) are left out,
 * as JSON leaves out undefined.
 */
function literal(node) {
  switch (node?.type) {
    case 'Literal':
      return node.regex ? undefined : node.value;
    case 'ArrayExpression':
      return node.elements.map(literal).filter((v) => v !== undefined);
    case 'ObjectExpression': {
      const out = {};
      for (const p of node.properties) {
        if (p.type !== 'Property' || p.computed) continue;
        const key = p.key.type === 'Identifier' ? p.key.name : String(p.key.value);
        const v = literal(p.value);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case 'UnaryExpression':
      return node.operator === '-' && node.argument.type === 'Literal' ? -node.argument.value : undefined;
    default:
      return undefined;
  }
}

/**
 * literalConsts returns the data of a module's `export const X = { … }` and
 * `[ … ]` declarations (their literal parts: helper functions inside are
 * left out), by name, so the compat runtime can back SillyTavern's
 * constant tables (ARGUMENT_TYPE, enumTypes, …) with its own values.
 */
export function literalConsts(source) {
  const ast = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
  const out = {};
  for (const node of ast.body) {
    const d = node.type === 'ExportNamedDeclaration' ? node.declaration : null;
    if (d?.type !== 'VariableDeclaration' || d.kind !== 'const') continue;
    for (const v of d.declarations) {
      const t = v.init?.type;
      if (v.id.type === 'Identifier' && (t === 'ObjectExpression' || t === 'ArrayExpression')) out[v.id.name] = literal(v.init);
    }
  }
  return out;
}

/** exportedLiteral returns the value of `export const name = <literal>` in source. */
export function exportedLiteral(source, name) {
  const ast = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
  for (const node of ast.body) {
    const d = node.type === 'ExportNamedDeclaration' ? node.declaration : null;
    if (d?.type !== 'VariableDeclaration') continue;
    for (const v of d.declarations) if (v.id.type === 'Identifier' && v.id.name === name) return literal(v.init);
  }
  throw new Error(`no export const ${name}`);
}

/** kindOf classifies a top-level declaration: function, class, let (may be reassigned) or const. */
function kindOf(decl, declarator) {
  if (decl.type === 'FunctionDeclaration') return 'function';
  if (decl.type === 'ClassDeclaration') return 'class';
  if (decl.type === 'VariableDeclaration') {
    if (decl.kind !== 'const') return 'let';
    const init = declarator?.init?.type;
    if (init === 'ArrowFunctionExpression' || init === 'FunctionExpression') return 'function';
    if (init === 'ClassExpression') return 'class';
    return 'const';
  }
  return 'const';
}

/** exportsOf returns { name: kind } for one module's source, sorted by name. */
export function exportsOf(source) {
  const ast = parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
  const locals = new Map();
  for (const node of ast.body) {
    const decl = node.type === 'ExportNamedDeclaration' && node.declaration ? node.declaration : node;
    if (decl.type === 'FunctionDeclaration' || decl.type === 'ClassDeclaration') {
      if (decl.id) locals.set(decl.id.name, kindOf(decl));
    } else if (decl.type === 'VariableDeclaration') {
      for (const d of decl.declarations) {
        if (d.id.type === 'Identifier') locals.set(d.id.name, kindOf(decl, d));
      }
    } else if (decl.type === 'ImportDeclaration') {
      for (const s of decl.specifiers) locals.set(s.local.name, 'const');
    }
  }
  const out = {};
  for (const node of ast.body) {
    if (node.type === 'ExportNamedDeclaration') {
      if (node.declaration) {
        const d = node.declaration;
        if (d.type === 'VariableDeclaration') {
          for (const v of d.declarations) if (v.id.type === 'Identifier') out[v.id.name] = kindOf(d, v);
        } else if (d.id) {
          out[d.id.name] = kindOf(d);
        }
      }
      for (const s of node.specifiers) {
        const name = s.exported.type === 'Literal' ? s.exported.value : s.exported.name;
        out[name] = node.source ? 'const' : (locals.get(s.local.name) ?? 'const');
      }
    } else if (node.type === 'ExportDefaultDeclaration') {
      out.default = node.declaration.type === 'FunctionDeclaration' ? 'function' : 'const';
    } else if (node.type === 'ExportAllDeclaration') {
      throw new Error(`export * from ${node.source.value} is not followed; list its names by hand`);
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function main() {
  const [root, version, origin] = process.argv.slice(2);
  if (!root || !version || !origin) {
    console.error('usage: node scripts/st-exports.mjs <ST frontend root> <version> "<where it came from>"');
    process.exit(2);
  }
  const modules = {};
  const constants = {};
  for (const p of COMPAT_PATHS) {
    const source = readFileSync(join(root, p), 'utf8');
    modules['/' + p] = exportsOf(source);
    const data = literalConsts(source);
    if (Object.keys(data).length > 0) constants['/' + p] = data;
  }
  const eventTypes = exportedLiteral(readFileSync(join(root, 'scripts/events.js'), 'utf8'), 'event_types');
  // The containers SillyTavern's extension_settings starts with (its own
  // extensions' keys: objective, memory, …): third-party extensions find
  // some of them there and write into them without making them first.
  const settings = exportedLiteral(readFileSync(join(root, 'scripts/extensions.js'), 'utf8'), 'extension_settings');
  const extensionSettings = Object.fromEntries(Object.entries(settings).filter(([, v]) => typeof v === 'object' && v !== null));
  const doc = { stVersion: version, source: origin, modules, constants, eventTypes, extensionSettings };
  const target = join(dirname(fileURLToPath(import.meta.url)), '../../backend/extensions/stcompat/st-exports.json');
  writeFileSync(target, JSON.stringify(doc, null, 1) + '\n');
  const counts = Object.entries(modules).map(([p, names]) => `${p} ${Object.keys(names).length}`);
  console.log(`wrote ${target}: ${counts.join(', ')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
