/**
 * The files of the Test Bench's packages, in the data directory: `packages/<store id>/<package
 * id>/<path>`. Their records are in the database (bench.ts); a package is listed only once its
 * record is in, so files without a record (an import cut by a crash, a Store deleted while the
 * service was down) are removed at open (`sweep`).
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Ids become folder names: only these characters, so no id can name another folder. */
const ID = /^[A-Za-z0-9_-]{1,100}$/;

export class PackageFiles {
  constructor(private readonly root: string) {}

  async write(storeId: string, packageId: string, relativePath: string, content: Uint8Array): Promise<void> {
    const file = this.fileOf(storeId, packageId, relativePath);
    await mkdir(path.dirname(file), { recursive: true });
    // flush: the file is on disk before the package's record is journaled and the import answered.
    await writeFile(file, content, { flush: true });
  }

  async read(storeId: string, packageId: string, relativePath: string): Promise<Uint8Array | null> {
    try {
      return await readFile(this.fileOf(storeId, packageId, relativePath));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async removePackage(storeId: string, packageId: string): Promise<void> {
    await rm(this.folderOf(storeId, packageId), { recursive: true, force: true });
  }

  async removeStore(storeId: string): Promise<void> {
    await rm(path.join(this.root, checkedId(storeId)), { recursive: true, force: true });
  }

  /** Removes every package folder `keep` does not name. */
  async sweep(keep: (storeId: string, packageId: string) => boolean): Promise<void> {
    for (const storeId of await folders(this.root)) {
      const packages = await folders(path.join(this.root, storeId));
      for (const packageId of packages) {
        if (!keep(storeId, packageId)) await rm(path.join(this.root, storeId, packageId), { recursive: true, force: true });
      }
      if (packages.every((packageId) => !keep(storeId, packageId))) await rm(path.join(this.root, storeId), { recursive: true, force: true });
    }
  }

  private folderOf(storeId: string, packageId: string): string {
    return path.join(this.root, checkedId(storeId), checkedId(packageId));
  }

  /** The file's path, refused unless it stays inside the package's folder. */
  private fileOf(storeId: string, packageId: string, relativePath: string): string {
    const folder = this.folderOf(storeId, packageId);
    const file = path.resolve(folder, relativePath);
    if (!file.startsWith(folder + path.sep)) throw new RangeError(`the path ${JSON.stringify(relativePath)} leaves its package`);
    return file;
  }
}

function checkedId(id: string): string {
  if (!ID.test(id)) throw new RangeError(`not a Store or package id: ${JSON.stringify(id)}`);
  return id;
}

async function folders(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR';
}
