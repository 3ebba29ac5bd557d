/**
 * How the console copies a value, in turn. Browsers give `navigator.clipboard` only to secure
 * contexts (https, localhost): a console opened as http://lrs-host:8411/admin/ from another machine
 * has none, and a button relying on it alone would silently copy nothing. So:
 * 1. navigator.clipboard, where the page has it;
 * 2. the value selected in a text area and `document.execCommand('copy')`, which browsers still
 *    allow in answer to a click, on any origin;
 * 3. neither: the button selects the value where the person sees it and asks them to press Ctrl+C
 *    (⌘C on macOS). Only 1 and 2 count as copied.
 * The page's side is use-copy-text.ts; this file holds the order, and runs without a DOM in tests.
 */

export type CopyOutcome = 'copied' | 'press-keys';

export interface CopyPage {
  /** navigator.clipboard: undefined outside secure contexts. */
  clipboard: { writeText(text: string): Promise<void> } | undefined;
  /** Step 2: whether `document.execCommand('copy')` copied `text`, selected in a text area. */
  copySelected(text: string): boolean;
}

export async function copyText(text: string, page: CopyPage): Promise<CopyOutcome> {
  if (page.clipboard) {
    try {
      await page.clipboard.writeText(text);
      return 'copied';
    } catch {
      // Refused (a permission, a page not in focus): the selection may still copy.
    }
  }
  return page.copySelected(text) ? 'copied' : 'press-keys';
}

/** The keys that copy a selection on a machine of this `navigator.platform`. */
export function copyKeys(platform: string): string {
  return /mac|iphone|ipad/i.test(platform) ? '⌘C' : 'Ctrl+C';
}
