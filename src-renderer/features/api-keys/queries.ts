import { useAdminQuery } from '../../api/hooks';

export function useApiKeys(slug: string | undefined) {
  return useAdminQuery('apiKeys.list', slug === undefined ? null : { slug });
}
