/**
 * Typed errors of the Storage implementations, so the HTTP layer maps them to a status once
 * (404 / 409) instead of parsing messages. StorageUnavailableError (503) lives beside the
 * interface in storage.ts and is re-exported here.
 */
export { StorageUnavailableError } from './storage';
export { StorageFullError } from './storage';
export { StorageDamagedError } from './storage';

/** A write named a Store or API key that does not exist (or no longer exists). */
export class StorageNotFoundError extends Error {
  constructor(
    readonly code: 'store_not_found' | 'api_key_not_found',
    message: string,
  ) {
    super(message);
    this.name = 'StorageNotFoundError';
  }
}

/** An insert collided with an existing record's unique id or slug. */
export class StorageDuplicateError extends Error {
  constructor(
    readonly code: 'store_exists' | 'slug_taken' | 'api_key_exists' | 'package_exists' | 'launch_exists',
    message: string,
  ) {
    super(message);
    this.name = 'StorageDuplicateError';
  }
}
