/**
 * What closing the last window does. With "keep the service running" on (and a tray icon to come
 * back through), the app stays alive in the tray and the local service keeps answering content;
 * otherwise the app quits, which stops the service gracefully.
 *
 * The preference defaults to off (connection-profiles.ts): on a laptop, a closed window that
 * silently keeps a port open and a process running is the surprise; a small organisation that
 * runs Lore as its LRS turns it on once, from the tray or the Connection screen. The same rule on
 * every platform, macOS included: there the service, not the window, is what costs.
 */
export function quitWhenWindowsClosed(options: { keepServiceRunning: boolean; hasTray: boolean }): boolean {
  return !(options.keepServiceRunning && options.hasTray);
}
