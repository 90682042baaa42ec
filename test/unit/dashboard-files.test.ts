import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtFiles } from '../../src/http/control/dashboard.js';

/**
 * The dashboard's files from the build (dist/ui), served from memory: every file of the folder
 * read once, together, at the first request; only those files, by their path under it.
 */
describe('builtFiles', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dashboard-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('every file by its path under the folder; a folder, a missing file or a path outside is none', async () => {
    writeFileSync(join(dir, 'index.html'), '<p>page</p>');
    mkdirSync(join(dir, 'vendor'));
    writeFileSync(join(dir, 'vendor', 'LICENSE.txt'), 'licence');
    writeFileSync(join(dir, '..', `${dir.split('/').pop()}-outside.txt`), 'outside');
    const read = builtFiles(dir);
    expect((await read('index.html'))?.toString()).toBe('<p>page</p>');
    expect((await read('vendor/LICENSE.txt'))?.toString()).toBe('licence');
    for (const rel of ['vendor', 'vendor/', 'nope.js', '', `../${dir.split('/').pop()}-outside.txt`, '/etc/hostname', 'vendor/../index.html']) {
      expect([rel, await read(rel)]).toEqual([rel, null]);
    }
    rmSync(join(dir, '..', `${dir.split('/').pop()}-outside.txt`));
  });

  test('read once: a file changed or added afterwards is not served until the next start', async () => {
    writeFileSync(join(dir, 'app.js'), 'one');
    const read = builtFiles(dir);
    expect((await read('app.js'))?.toString()).toBe('one');
    writeFileSync(join(dir, 'app.js'), 'two');
    writeFileSync(join(dir, 'new.js'), 'new');
    expect((await read('app.js'))?.toString()).toBe('one');
    expect(await read('new.js')).toBeNull();
    expect((await builtFiles(dir)('app.js'))?.toString()).toBe('two');
  });

  test('a folder that cannot be read fails the request, and is read again at the next one', async () => {
    const later = join(dir, 'later');
    const read = builtFiles(later);
    await expect(read('index.html')).rejects.toMatchObject({ code: 'ENOENT' });
    mkdirSync(later);
    writeFileSync(join(later, 'index.html'), 'built');
    expect((await read('index.html'))?.toString()).toBe('built');
  });
});
