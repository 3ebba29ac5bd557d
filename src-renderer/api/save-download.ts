/**
 * The web console's way to hand a file to the user: a blob: URL clicked through an <a download>.
 * A download is navigation, not script, so the strict CSP (script-src 'self') stays as it is.
 */
/** Saves `blob` through the browser's downloads as `fileName`. */
export function saveBlobAsDownload(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.rel = 'noopener';
  anchor.style.display = 'none';
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // The download has started from the click; the URL may go once the event loop moves on.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
