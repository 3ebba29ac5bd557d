/**
 * Why the Test Bench refuses a package: the file at fault (a zip entry or the manifest, `null` when
 * the package as a whole is wrong) and the problem in words the person who built it can act on.
 */
export class PackageError extends Error {
  constructor(
    readonly file: string | null,
    readonly problem: string,
  ) {
    super(file === null ? problem : `${file}: ${problem}`);
    this.name = 'PackageError';
  }
}
