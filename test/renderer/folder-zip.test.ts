/**
 * A folder picked in the console, zipped in the page, is a zip the service reads as any other:
 * checked here with the service's own reader (yauzl) and manifest reader.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readPackageArchive } from '../../src-server/bench/package-archive';
import { describePackage } from '../../src-server/bench/package-manifest';
import { zipFolder } from '../../src-renderer/features/bench/folder-zip';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const TINCAN = `<?xml version="1.0" encoding="utf-8"?>
<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
  <activity id="https://lore.example/folder-course" type="http://adlnet.gov/expapi/activities/course">
    <name>Folder course</name><launch lang="en-US">story.html</launch>
  </activity>
</activities></tincan>`;

describe('a folder zipped in the console', () => {
  it('is read back by the service: every file below the folder picked, byte for byte, and its manifest', async () => {
    const video = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);
    const files = [
      { path: 'My course/tincan.xml', text: TINCAN },
      { path: 'My course/story.html', text: '<html>story</html>' },
      { path: 'My course/story_content/vidéo 1.mp4', bytes: video },
    ].map((file) => ({
      path: file.path,
      bytes: async () => (file.bytes ?? new TextEncoder().encode(file.text)).slice().buffer,
    }));
    const zip = await zipFolder(files);
    expect(zip.type).toBe('application/zip');
    const dir = mkdtempSync(join(tmpdir(), 'lore-folder-zip-'));
    dirs.push(dir);
    const file = join(dir, 'package.zip');
    writeFileSync(file, new Uint8Array(await zip.arrayBuffer()));

    const read = new Map<string, Buffer>();
    const summary = await readPackageArchive(file, { maxFiles: 100, maxTotalBytes: 10_000_000 }, async (entry) => {
      read.set(entry.path, entry.content);
    });
    expect([...read.keys()]).toEqual(['tincan.xml', 'story.html', 'story_content/vidéo 1.mp4']);
    expect(new Uint8Array(read.get('story_content/vidéo 1.mp4')!)).toEqual(video);
    expect(summary).toEqual({ files: 3, totalBytes: TINCAN.length + 18 + video.length });
    const description = describePackage([...read.keys()], (path) => read.get(path)!.toString('utf8'));
    expect(description).toMatchObject({ kind: 'tincan', title: 'Folder course', launch: 'story.html' });
  });
});
