/** A copy button's state, and the page's side of copying (copy-text.ts says in which order). */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { copyKeys, copyText, type CopyOutcome, type CopyPage } from './copy-text';

/** Step 2 of copy-text.ts: a text area off screen (one with display: none cannot be selected), then the focus back where it was. */
function copySelected(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.readOnly = true;
  area.setAttribute('aria-hidden', 'true');
  area.style.cssText = 'position: fixed; top: 0; left: -10000px; opacity: 0;';
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.body.appendChild(area);
  try {
    area.focus();
    area.select();
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
    focused?.focus();
  }
}

function thisPage(): CopyPage {
  // Undefined outside secure contexts, whatever the DOM types say.
  return { clipboard: (navigator.clipboard as Clipboard | undefined) ?? undefined, copySelected };
}

/** Selects what `element` shows, for the person to copy with the keyboard. */
function selectContents(element: HTMLElement): void {
  const selection = document.getSelection();
  if (!selection) return;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
}

const COPIED_MS = 2000;
const PRESS_KEYS_MS = 10_000;

/**
 * `copy` copies `value`; `copied` only when it really was. When it could not be, `pressKeys` holds
 * the words to show ("Press Ctrl+C to copy") and the value is selected: in `shown`, the field that
 * shows it, or else in the element the button then shows it in, given `selectWhenShown` as its ref
 * (mounted in a popover, say, only in that state).
 */
export function useCopyText(value: string, shown?: RefObject<HTMLElement | null>) {
  const [outcome, setOutcome] = useState<CopyOutcome | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => {
    if (outcome === 'press-keys' && shown?.current) selectContents(shown.current);
  }, [outcome, shown]);
  const selectWhenShown = useCallback((element: HTMLElement | null) => {
    if (element) selectContents(element);
  }, []);

  const reset = useCallback(() => setOutcome(null), []);
  const copy = useCallback(async () => {
    const result = await copyText(value, thisPage());
    clearTimeout(timer.current);
    setOutcome(result);
    timer.current = setTimeout(reset, result === 'copied' ? COPIED_MS : PRESS_KEYS_MS);
  }, [value, reset]);
  const pressKeys = outcome === 'press-keys' ? `Press ${copyKeys(navigator.platform)} to copy` : null;
  return { copy, reset, copied: outcome === 'copied', pressKeys, selectWhenShown };
}
