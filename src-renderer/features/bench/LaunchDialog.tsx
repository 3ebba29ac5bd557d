import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { PackageView } from '../../../src-server/admin/contract';
import { useAdminClient } from '../../api/client-context';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { fieldError } from '../../ui/field-error';
import { useLaunch } from './queries';

interface Learner {
  name: string;
  mbox: string;
}

/** Test learners to pick in one click; "Make up a learner" adds others. */
const TEST_LEARNERS: Learner[] = [
  { name: 'Ada Test', mbox: 'ada.test@example.com' },
  { name: 'Ben Sample', mbox: 'ben.sample@example.com' },
  { name: 'Chloé Trial', mbox: 'chloe.trial@example.com' },
];
const FIRST_NAMES = ['Alex', 'Sam', 'Robin', 'Kim', 'Noor', 'Jules', 'Mika', 'Ravi', 'Lena', 'Tomás'];
const LAST_NAMES = ['Learner', 'Tester', 'Student', 'Trainee', 'Novice', 'Pilot'];

function madeUpLearner(): Learner {
  const pick = <T,>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const name = `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`;
  const tag = Math.random().toString(36).slice(2, 6);
  return { name, mbox: `${name.toLowerCase().replace(/[^a-z]+/g, '.')}.${tag}@example.com` };
}

/** Launches a unit of a package for a learner, and opens the course. */
export function LaunchDialog({
  slug,
  pkg,
  onClose,
  onLaunched,
}: {
  slug: string;
  pkg: PackageView;
  onClose: () => void;
  onLaunched: (registration: string) => void;
}) {
  const client = useAdminClient();
  const launch = useLaunch();
  const [learners, setLearners] = useState<Learner[]>(TEST_LEARNERS);
  const [learner, setLearner] = useState<Learner>(TEST_LEARNERS[0]!);
  const [unit, setUnit] = useState<string | null>(pkg.units[0]?.id ?? null);
  const [openError, setOpenError] = useState<AdminError | undefined>();

  const makeUp = () => {
    const made = madeUpLearner();
    setLearners((list) => [...list, made]);
    setLearner(made);
  };

  const submit = async () => {
    setOpenError(undefined);
    const input = { slug, id: pkg.id, learner, ...(pkg.kind === 'cmi5' && unit !== null ? { unit } : {}) };
    const launched = await launch.run(input).catch(() => null);
    if (!launched) return;
    try {
      await client.openLaunch(launched.url);
    } catch (error) {
      setOpenError(toAdminError(error));
    }
    onLaunched(launched.registration);
  };

  return (
    <Modal opened onClose={onClose} title={`Launch “${pkg.title}”`} size="lg">
      <Stack>
        <Text size="sm" c="dimmed">
          The course opens in a new {typeof window !== 'undefined' && 'lore' in window ? 'window' : 'tab'} with its own short-lived key, as an LMS
          would launch it ({pkg.kind === 'cmi5' ? 'cmi5' : 'Tin Can'}). Its statements appear in the attempt as they arrive.
        </Text>
        <Group align="end" wrap="nowrap">
          <Select
            label="Learner"
            data={learners.map((l) => ({ value: l.mbox, label: `${l.name} <${l.mbox}>` }))}
            value={learner.mbox}
            onChange={(mbox) => setLearner(learners.find((l) => l.mbox === mbox) ?? learner)}
            allowDeselect={false}
            style={{ flex: 1 }}
            comboboxProps={{ withinPortal: true }}
          />
          <Button variant="light" onClick={makeUp}>
            Make up a learner
          </Button>
        </Group>
        <Group grow>
          <TextInput label="Name" value={learner.name} onChange={(e) => setLearner({ ...learner, name: e.currentTarget.value })} error={fieldError(launch.error, 'learner.name')} />
          <TextInput label="Email" value={learner.mbox} onChange={(e) => setLearner({ ...learner, mbox: e.currentTarget.value })} error={fieldError(launch.error, 'learner.mbox')} />
        </Group>
        {pkg.kind === 'cmi5' && (
          <Select
            label="Assignable unit"
            data={pkg.units.map((u) => ({ value: u.id, label: u.title }))}
            value={unit}
            onChange={setUnit}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
        )}
        {launch.error && !launch.error.field && (
          <Alert color="red" role="alert">
            {launch.error.message}
          </Alert>
        )}
        {openError && (
          <Alert color="orange" role="alert">
            The attempt is ready but the course did not open: {openError.message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void submit()} loading={launch.pending}>
            Launch
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
