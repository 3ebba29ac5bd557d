/** The service's own version, shown by /admin/api/status and the console. */
export const SERVICE_VERSION = '0.1.0';
