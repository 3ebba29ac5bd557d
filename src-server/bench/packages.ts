/**
 * Importing a course package into a Store: the zip read safely (package-archive.ts), every file
 * kept, the manifest read (package-manifest.ts), and only then the package listed. A package that
 * fails leaves nothing behind.
 */
import { randomUUID } from 'node:crypto';
import type { PackageRecord, StoreRecord } from '../storage/storage';
import type { BenchContext } from './bench-context';
import { readPackageArchive } from './package-archive';
import type { ArchiveLimits } from './package-archive';
import { packageDescriptionSchema } from './package-description';
import type { PackageDescription, PackageUnit } from './package-description';
import { PackageError } from './package-error';
import { describePackage } from './package-manifest';
import { referenceOutcomeSchema } from './reference-outcome';
import type { ReferenceOutcome } from './reference-outcome';

/** A package as the admin API lists it. */
export interface PackageView {
  id: string;
  kind: 'tincan' | 'cmi5';
  title: string;
  units: PackageUnit[];
  files: number;
  bytes: number;
  createdAt: string;
  reference: ReferenceOutcome | null;
}

/** The most a package may be: a course with video runs to a few hundred megabytes. */
export const PACKAGE_LIMITS: ArchiveLimits & { maxZipBytes: number } = {
  maxZipBytes: 512 * 1024 * 1024,
  maxFiles: 20_000,
  maxTotalBytes: 1024 * 1024 * 1024,
};

/** Manifests are looked for at the top and one folder down (describePackage): only those are kept in memory. */
const MANIFEST = /(^|\/)(tincan|cmi5)\.xml$/i;

export async function importPackage(
  ctx: BenchContext,
  store: StoreRecord,
  zipPath: string,
  limits: ArchiveLimits = PACKAGE_LIMITS,
  now = new Date(),
): Promise<PackageRecord> {
  const id = randomUUID();
  const paths: string[] = [];
  const manifests = new Map<string, string>();
  try {
    const { files, totalBytes } = await readPackageArchive(zipPath, limits, async (file) => {
      paths.push(file.path);
      if (MANIFEST.test(file.path)) manifests.set(file.path, file.content.toString('utf8'));
      await ctx.storage.writePackageFile(store.id, id, file.path, file.content);
    });
    const description = describePackage(paths, (path) => {
      const text = manifests.get(path);
      if (text === undefined) throw new PackageError(path, 'is not where a manifest is looked for');
      return text;
    });
    const record: PackageRecord = {
      id,
      storeId: store.id,
      kind: description.kind,
      title: description.title,
      description: description as unknown as Record<string, unknown>,
      files,
      bytes: totalBytes,
      createdAt: now.toISOString(),
      reference: null,
    };
    await ctx.storage.insertPackage(record);
    return record;
  } catch (err) {
    await ctx.storage.discardPackageFiles(store.id, id).catch((discardError: unknown) => {
      ctx.log(`could not remove the files of a package that failed to import: ${String(discardError)}`);
    });
    throw err;
  }
}

/** The manifest a package was imported with, as its schema reads it. */
export function packageDescription(pkg: PackageRecord): PackageDescription {
  return packageDescriptionSchema.parse(pkg.description);
}

export function toPackageView(pkg: PackageRecord): PackageView {
  return {
    id: pkg.id,
    kind: pkg.kind,
    title: pkg.title,
    units: packageDescription(pkg).units,
    files: pkg.files,
    bytes: pkg.bytes,
    createdAt: pkg.createdAt,
    reference: packageReference(pkg),
  };
}

/** The package's reference outcome, as its schema reads it; null: none marked. */
export function packageReference(pkg: PackageRecord): ReferenceOutcome | null {
  return pkg.reference === null ? null : referenceOutcomeSchema.parse(pkg.reference);
}

/** Where the service serves a package's file (http/routes/bench-content.ts) under `baseUrl`: beside the Store's xAPI endpoint. */
export function packageContentUrl(baseUrl: string, store: StoreRecord, pkg: PackageRecord, relativePath: string): string {
  const encoded = relativePath
    .split('?')
    .map((part, index) => (index === 0 ? part.split('/').map(encodeURIComponent).join('/') : part))
    .join('?');
  return `${baseUrl}/${store.slug}/packages/${pkg.id}/${encoded}`;
}
