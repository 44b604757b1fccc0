import { describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES, asSentence, checkInstallUrl, failureSentence, pickZip, sizeWords, zipProblem } from './extension-install';

describe('zip checks before upload', () => {
  it('takes a .zip up to 46 MiB and says why another is refused', () => {
    expect(zipProblem({ name: 'mood.ZIP', size: 1000 })).toBeNull();
    expect(zipProblem({ name: 'mood.zip', size: MAX_UPLOAD_BYTES })).toBeNull();
    expect(zipProblem({ name: 'mood.zip', size: MAX_UPLOAD_BYTES + 1 })).toBe(
      'mood.zip is 46.0 MiB; an uploaded package can be at most 46 MiB. Put it online and install it by its https address instead.',
    );
    expect(zipProblem({ name: 'big.zip', size: 47.3 * 1024 * 1024 })).toMatch(/^big\.zip is 47\.3 MiB;/);
    expect(zipProblem({ name: 'mood.tar.gz', size: 10 })).toMatch(/^mood\.tar\.gz is not a \.zip file\./);
    expect(zipProblem({ name: 'e.zip', size: 0 })).toBe('e.zip is empty.');
    expect(MAX_UPLOAD_BYTES).toBe(46 * 1024 * 1024);
  });

  it('takes exactly one file from a drop', () => {
    const a = { name: 'a.zip', size: 5 };
    expect(pickZip([a])).toEqual({ file: a });
    expect(pickZip([])).toEqual({ problem: 'Nothing was dropped. Drop one .zip file.' });
    expect(pickZip([a, { name: 'b.zip', size: 5 }])).toEqual({ problem: '2 files were dropped; install one .zip at a time.' });
    expect(pickZip([{ name: 'a.png', size: 5 }])).toHaveProperty('problem');
  });

  it('says sizes as a person reads them', () => {
    expect([sizeWords(1), sizeWords(900), sizeWords(2048), sizeWords(3.45 * 1024 * 1024)]).toEqual(['1 byte', '900 bytes', '2 KiB', '3.5 MiB']);
  });
});

describe('install address', () => {
  it('takes https addresses only, each refusal said plainly', () => {
    expect(checkInstallUrl('  https://github.com/me/mood  ')).toEqual({ url: 'https://github.com/me/mood' });
    expect(checkInstallUrl('https://example.com/mood.zip')).toEqual({ url: 'https://example.com/mood.zip' });
    expect(checkInstallUrl('')).toEqual({ problem: 'Enter the https address of a repository or a .zip file.' });
    expect(checkInstallUrl('github.com/me/mood')).toEqual({ problem: '“github.com/me/mood” is not a web address. It should start with https://' });
    expect(checkInstallUrl('http://example.com/mood.zip')).toEqual({ problem: 'Only https:// addresses can be installed: an http:// download could be changed on its way.' });
    expect(checkInstallUrl('ftp://example.com/mood.zip')).toEqual({ problem: 'Only https:// addresses can be installed, not ftp:' });
    expect(checkInstallUrl('file:///home/me/mood.zip')).toHaveProperty('problem');
    expect(checkInstallUrl('https://github.com/me')).toEqual({ problem: 'The address should name a repository (https://site/owner/name) or a .zip file.' });
    expect(checkInstallUrl('https://codeberg.org/me/mood.git')).toEqual({ url: 'https://codeberg.org/me/mood.git' });
    expect(checkInstallUrl('https://me:secret@example.com/x.zip')).toEqual({ problem: 'Leave the user name and password out of the address.' });
  });
});

describe('refusals as sentences', () => {
  it('puts the field of a bad manifest in a sentence and keeps the code for the fold', () => {
    const err = { code: 'extension.invalid_manifest', message: 'manifest.json: hearth.permissions[1]: unknown permission "camera"', details: { field: 'hearth.permissions[1]' } };
    expect(failureSentence(err)).toEqual({
      sentence: 'The package’s manifest.json has a problem with hearth.permissions[1]: unknown permission "camera".',
      code: 'extension.invalid_manifest',
      details: { field: 'hearth.permissions[1]' },
    });
    const whole = { code: 'extension.invalid_manifest', message: 'manifest.json: manifest.json: is not a JSON object', details: { field: 'manifest.json' } };
    expect(failureSentence(whole).sentence).toBe('The package’s manifest.json is not a JSON object.');
    expect(failureSentence({ code: 'extension.invalid_manifest', message: 'manifest.json: odd' }).sentence).toBe('The package’s manifest.json is not valid: odd.');
  });

  it('names the file of a bad package, and says a failed download plainly', () => {
    const zip = { code: 'extension.invalid_package', message: 'broken.zip: is not a zip archive: zip: not a valid zip file', details: { file: 'broken.zip' } };
    expect(failureSentence(zip).sentence).toBe('The file broken.zip is not a zip archive: zip: not a valid zip file.');
    expect(failureSentence(zip, 'broken.zip').sentence).toBe('It is not a zip archive: zip: not a valid zip file.');
    const inside = { code: 'extension.invalid_package', message: 'manifest.json: not found at the package\'s root or in its single top folder', details: { file: 'manifest.json' } };
    expect(failureSentence(inside, 'mood.zip').sentence).toBe('The file manifest.json is not found at the package\'s root or in its single top folder.');
    const fetch = { code: 'extension.fetch_failed', message: 'fetch https://example.com/x.zip: the server answered 404 Not Found' };
    expect(failureSentence(fetch).sentence).toBe('Could not download https://example.com/x.zip: the server answered 404 Not Found.');
    expect(failureSentence({ code: 'extension.exists', message: 'an extension "mood" is already installed; remove or update it' })).toMatchObject({
      sentence: 'An extension "mood" is already installed; remove or update it.',
      code: 'extension.exists',
      details: null,
    });
    expect(failureSentence(new Error('boom'))).toEqual({ sentence: 'Boom.', code: 'internal', details: null });
  });

  it('says the path rule for an extension’s folder, not a library', () => {
    const outside = { code: 'library.path_not_allowed', message: '"/etc" is not inside a folder this server may use for SillyTavern libraries (/srv/st)', details: { roots: ['/srv/st'] } };
    expect(failureSentence(outside).sentence).toBe('This server reads folders only under /srv/st (its --library-root).');
    const off = { code: 'library.path_not_allowed', message: 'importing and exporting SillyTavern folders by path is off on this server: …', details: { roots: [] } };
    expect(failureSentence(off).sentence).toMatch(/^Installing folders by path is off on this server/);
    const data = { code: 'library.path_not_allowed', message: '"/data/x" is inside Hearth\'s own data folder: pick a folder outside /data', details: { roots: [] } };
    expect(failureSentence(data).sentence).toBe('"/data/x" is inside Hearth\'s own data folder: pick a folder outside /data.');
  });

  it('makes a sentence of a fragment', () => {
    expect([asSentence('done.'), asSentence('why?'), asSentence(' ok '), asSentence('')]).toEqual(['Done.', 'Why?', 'Ok.', '']);
  });
});
