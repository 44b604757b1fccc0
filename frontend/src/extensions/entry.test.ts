import { describe, expect, it } from 'vitest';
import { activateHook, fetchManifest, frameHooks, frameSrc, packagePath, panelOf, runsInFrame } from './entry';
import { entry } from './testing/fakes';

describe('what the host reads of an entry', () => {
  it('runs only active sandboxed extensions with an entry page', () => {
    expect(runsInFrame(entry('a', []))).toBe(true);
    expect(runsInFrame(entry('a', [], { status: 'blocked' }))).toBe(false);
    expect(runsInFrame(entry('a', [], { mode: 'page' }))).toBe(false);
    expect(runsInFrame(entry('a', [], { entry: '' }))).toBe(false);
  });

  it('encodes paths inside the package and refuses the rest', () => {
    expect(packagePath('ui/my page.html')).toBe('ui/my%20page.html');
    for (const bad of ['', '/etc/passwd', '../x.html', 'a/../../x', 'a//b', 'a\\b', './a']) expect(packagePath(bad), bad).toBeNull();
    expect(frameSrc(entry('mood-tracker', [], { entry: 'index.html?x#y' }))).toBe('/ext/mood-tracker/index.html%3Fx%23y');
    expect(frameSrc(entry('a', [], { entry: '../b/index.html' }))).toBeNull();
  });

  it('has a panel only with ui.panel granted and a panel object in the manifest', () => {
    expect(panelOf(entry('m', ['ui.panel'], { panel: { title: ' Mood ', icon: '../x.svg' } }))).toEqual({ id: 'm', title: 'Mood', icon: null });
    expect(panelOf(entry('m', ['ui.panel'], { displayName: 'Mood tracker', panel: { icon: 'i.svg' } }))).toEqual({ id: 'm', title: 'Mood tracker', icon: '/ext/m/i.svg' });
    expect(panelOf(entry('m', [], { permissions: ['ui.panel'], panel: { title: 'Mood' } }))).toBeNull();
    expect(panelOf(entry('m', ['ui.panel']))).toBeNull();
  });

  it('reads hooks.activate as a global function name', () => {
    expect(activateHook({})).toBeNull();
    expect(activateHook({ hooks: { activate: 'startMood' } })).toBe('startMood');
    expect(() => activateHook({ hooks: { activate: 'alert(1)' } })).toThrow(/not the name of a function/);
    expect(() => activateHook({ hooks: 'x' })).toThrow(/not an object/);
    expect(() => activateHook('x')).toThrow(/not a JSON object/);
    expect(frameHooks({ hooks: { activate: 'a', install: 'i', update: 'u', enable: 'e', disable: 'ignored' } })).toEqual({ activate: 'a', install: 'i', update: 'u', enable: 'e' });
    expect(frameHooks({})).toEqual({ activate: null, install: null, update: null, enable: null });
    expect(() => frameHooks({ hooks: { install: 'x y' } })).toThrow(/hooks.install .* not the name of a function/);
  });

  it('fetches manifest.json from the extension’s files', async () => {
    const asked: string[] = [];
    const ok = (async (url: string) => {
      asked.push(url);
      return new Response('\uFEFF{"hooks":{"activate":"go"}}', { status: 200 });
    }) as unknown as typeof fetch;
    await expect(fetchManifest('mood', ok)).resolves.toEqual({ hooks: { activate: 'go' } });
    expect(asked).toEqual(['/ext/mood/manifest.json']);
    const missing = (async () => new Response('nope', { status: 404 })) as unknown as typeof fetch;
    await expect(fetchManifest('mood', missing)).rejects.toThrow('HTTP 404');
  });
});
