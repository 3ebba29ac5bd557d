import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { toAdminError } from '../api/admin-client';
import { createHttpAdminClient } from '../api/http-transport';

/**
 * The web console's door: the admin token (printed by the service on its first start, or set with
 * LRS_ADMIN_TOKEN) is checked against the service before the console opens.
 */
export function SignInScreen({ baseUrl, onSignedIn, reason }: { baseUrl: string; onSignedIn: (token: string) => void; reason?: string | undefined }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [checking, setChecking] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setChecking(true);
    setError(undefined);
    try {
      await createHttpAdminClient({ baseUrl, token: token.trim() }).call('status.get', {});
      onSignedIn(token.trim());
    } catch (caught) {
      const adminError = toAdminError(caught);
      setError(adminError.status === 401 ? 'The service did not accept this admin token.' : adminError.message);
    } finally {
      setChecking(false);
    }
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={440} component="form" onSubmit={(event: FormEvent) => void submit(event)}>
        <Stack>
          <Title order={2}>Lore LRS</Title>
          <Text size="sm" c="dimmed">
            Sign in to the admin console of <b>{baseUrl}</b>.
          </Text>
          {reason && <Alert color="orange">{reason}</Alert>}
          <PasswordInput
            label="Admin token"
            description="Printed by the service on its first start, or the value of LRS_ADMIN_TOKEN."
            value={token}
            onChange={(e) => setToken(e.currentTarget.value)}
            error={error}
            required
            autoFocus
          />
          <Button type="submit" loading={checking} disabled={token.trim() === ''}>
            Sign in
          </Button>
          <Text size="xs" c="dimmed">
            The token is kept for this browser tab only.
          </Text>
        </Stack>
      </Paper>
    </Center>
  );
}
