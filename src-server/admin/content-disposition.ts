/**
 * Reads the file name a download's Content-Disposition header offers (a backup's, for one). Pure
 * and dependency-free: the desktop main process and the web console both use it.
 */
/** The file name of a Content-Disposition header (`filename*=` preferred), or undefined. */
export function dispositionFileName(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)?''([^;]+)/.exec(header);
  let name: string | undefined;
  if (extended?.[1]) {
    try {
      name = decodeURIComponent(extended[1].trim());
    } catch {
      name = undefined;
    }
  }
  name ??= /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/.exec(header)?.slice(1).find((part) => part !== undefined);
  // Only a bare name: never a path chosen by the server.
  const base = name?.split(/[\\/]/).pop()?.trim();
  return base && base !== '.' && base !== '..' ? base : undefined;
}
