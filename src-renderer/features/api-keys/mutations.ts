import { useAdminMutation } from '../../api/hooks';

export const useCreateApiKey = () => useAdminMutation('apiKeys.create');
export const useRotateApiKey = () => useAdminMutation('apiKeys.rotate');
export const useRevokeApiKey = () => useAdminMutation('apiKeys.revoke');
