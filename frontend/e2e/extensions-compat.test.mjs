// The compatibility report in the extension manager (EXTENSIONS.md §5):
// a SillyTavern-style extension (fixtures/ext-st-report: modules imported
// by relative path from the root and from a nested file, a settings
// drawer, an event handler, getContext() members, an interceptor) zipped
// and uploaded from the file chooser is read, never run, and its review
// says "Partly works: 2 things it uses are not in Hearth", folding the two
// (Generate from /script.js, getContext().openCharacterEditor); its card
// carries the verdict and its Details the report. One importing
// /scripts/openai.js says it will not load and why. The same report comes
// from api.extensions.compatReport. 1280×800 and 390×844 (touch, 44 px
// targets, nothing sideways). Screenshots `extensions-compat-*`.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fromMoreSettings, openApp, screenshot, useHearth, waitFor, zip } from './harness.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'ext-st-report');

/** zipFolder packs a folder's files under a top folder, as GitHub's archives have them. */
function zipFolder(dir, top) {
  const files = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files[`${top}/${relative(dir, p)}`] = readFileSync(p);
    }
  };
  walk(dir);
  return zip(files);
}

/** One that cannot load: it imports a SillyTavern module Hearth does not serve. */
const BROKEN = zip({
  'manifest.json': JSON.stringify({ display_name: 'Needs OpenAI', js: 'index.js', hearth: { id: 'needs-openai' } }),
  'index.js': "import { oai_settings } from '../../../openai.js';\nimport { chat } from '../../../../script.js';\nconsole.log(oai_settings, chat);",
});

describe('the compatibility report', () => {
  const env = useHearth({ before, after });
  const pages = [];
  let dir;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-compat-e2e-'));
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const p of pages) assert.deepEqual(p.errors, [], 'uncaught errors in the page');
  });

  it('reads an uploaded page extension and says in words what of it works in Hearth', async () => {
    const page = await openApp(env.browser, env.server.url);
    pages.push(page);
    await fromMoreSettings(page, /^Extensions…/);
    const dialog = page.getByRole('dialog', { name: 'Extensions' });
    await dialog.getByRole('tab', { name: 'Add extension' }).click();
    const path = join(dir, 'report-probe.zip');
    writeFileSync(path, zipFolder(FIXTURE, 'report-probe-main'));
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), dialog.getByRole('button', { name: 'Choose a .zip…' }).click()]);
    await chooser.setFiles(path);

    // The review: full access, then the verdict, what was read, and the fold.
    const review = dialog.getByRole('region', { name: 'Turn on “Report Probe”?' });
    await review.waitFor();
    const compat = review.getByRole('region', { name: 'Compatibility' });
    await compat.getByText('Partly works: 2 things it uses are not in Hearth', { exact: true }).waitFor();
    assert.equal(await compat.getAttribute('data-compat-verdict'), 'partial');
    await compat.getByText(/^Read 2 files; it uses 3 SillyTavern modules, 3 getContext\(\) members, 1 event, 1 page element\./).waitFor();
    await compat.getByText('reportProbeInterceptor').waitFor();
    const fold = compat.getByText('What it uses that Hearth lacks (2)');
    await fold.click();
    const names = compat.locator('[data-compat-group="names"]');
    await names.getByText('Generate (/script.js)', { exact: true }).waitFor();
    await names.getByText('not in Hearth: using it shows an error').waitFor();
    await compat.locator('[data-compat-group="context"]').getByText('openCharacterEditor', { exact: true }).waitFor();
    assert.deepEqual(
      await compat.locator('[data-compat-group] h5').allInnerTexts().then((t) => t.map((s) => s.toLowerCase())),
      ['names it imports', 'getcontext() members'],
    );
    await screenshot(page, 'extensions-compat-review-desktop');

    // The same report from the ABI.
    const r = await env.server.invoke('extensions.compatReport', 'report-probe');
    assert.equal(r.verdict, 'partial');
    assert.equal(r.unsupported, 2);
    assert.deepEqual(
      r.modules.map((m) => [m.path, m.served, m.linked]),
      [
        ['/script.js', true, true],
        ['/scripts/extensions.js', true, true],
        ['/scripts/i18n.js', true, true],
      ],
    );
    assert.deepEqual(r.domIds, [{ id: 'extensions_settings2', supported: true }]);

    // Kept off: the card's badge, and the report again under Details.
    await dialog.getByRole('button', { name: 'Keep it off' }).click();
    const card = dialog.getByRole('listitem').filter({ has: page.getByText('Report Probe', { exact: true }) });
    await card.locator('[data-compat="partial"]').getByText('Partly works').waitFor();
    await card.getByRole('region', { name: 'Compatibility' }).getByText('Partly works: 2 things it uses are not in Hearth').waitFor();
    await screenshot(page, 'extensions-compat-details-desktop');

    // One that will not load, installed by a script: it shows up live, and says why.
    await env.server.invoke('extensions.install', { fileName: 'needs-openai.zip', base64: BROKEN.toString('base64') });
    const broken = dialog.getByRole('listitem').filter({ has: page.getByText('Needs OpenAI', { exact: true }) });
    await broken.locator('[data-compat="wont_load"]').getByText('Will not load').waitFor();
    await broken.getByText('Details of Needs OpenAI').click();
    const why = broken.getByRole('region', { name: 'Compatibility' });
    await why.getByText('Will not load: it imports /scripts/openai.js, which Hearth does not provide', { exact: true }).waitFor();
    await why.getByText('What it uses that Hearth lacks (1)').click();
    await why.locator('[data-compat-group="modules"]').getByText('not provided by Hearth: it cannot load').waitFor();
    await broken.scrollIntoViewIfNeeded();
    await screenshot(page, 'extensions-compat-wont-load-desktop');
    assert.equal((await env.server.invoke('extensions.list')).find((e) => e.id === 'needs-openai').compat.verdict, 'wont_load');
  });

  it('fits a phone: the report under Details, its fold open, 44 px targets, nothing sideways', async () => {
    const context = await env.browser.newContext({ ...PHONE, reducedMotion: 'reduce' });
    const phone = await openApp(context, env.server.url);
    pages.push(phone);
    await fromMoreSettings(phone, /^Extensions…/, { tap: true });
    const dialog = phone.getByRole('dialog', { name: 'Extensions' });
    const card = dialog.getByRole('listitem').filter({ has: phone.getByText('Report Probe', { exact: true }) });
    await card.getByText('Partly works', { exact: true }).waitFor();
    await card.getByText('Details of Report Probe').tap();
    const compat = card.getByRole('region', { name: 'Compatibility' });
    await compat.getByText('Partly works: 2 things it uses are not in Hearth').waitFor();
    await compat.getByText('What it uses that Hearth lacks (2)').tap();
    await compat.getByText('Generate (/script.js)').waitFor();
    await compat.scrollIntoViewIfNeeded();
    await phone.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
    const box = await phone.locator('dialog[open]').last().boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390.5, `the dialog fits (${JSON.stringify(box)})`);
    const problems = await phone.evaluate(() => {
      const out = [];
      const dlg = [...document.querySelectorAll('dialog[open]')].at(-1);
      const body = dlg.querySelector('.body');
      if (body.scrollWidth > body.clientWidth + 1) out.push(`the dialog scrolls sideways (${body.scrollWidth} > ${body.clientWidth})`);
      for (const el of dlg.querySelectorAll('[data-compat-verdict] *, [data-compat-verdict]')) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > innerWidth + 0.5) out.push(`${el.tagName} "${el.textContent.trim().slice(0, 30)}" ends at ${Math.round(r.right)}`);
      }
      for (const el of dlg.querySelectorAll('button, summary, input[role=switch]')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > innerHeight) continue;
        if (r.width < 43.5 || r.height < 43.5) out.push(`${el.tagName} "${el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30)}" is ${Math.round(r.width)}×${Math.round(r.height)}`);
      }
      return out;
    });
    assert.deepEqual(problems, []);
    await screenshot(phone, 'extensions-compat-phone');
    await waitFor(async () => (await env.server.invoke('extensions.list')).length === 2, 'both still installed');
    await context.close();
  });
});
