/** The web console keeps the admin token for this tab only (sessionStorage), never on disk. */
const KEY = 'lore.adminToken';

export function readAdminToken(storage: Pick<Storage, 'getItem'> = sessionStorage): string | null {
  return storage.getItem(KEY);
}

export function saveAdminToken(token: string, storage: Pick<Storage, 'setItem'> = sessionStorage): void {
  storage.setItem(KEY, token);
}

export function clearAdminToken(storage: Pick<Storage, 'removeItem'> = sessionStorage): void {
  storage.removeItem(KEY);
}
