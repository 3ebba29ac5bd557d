import { Button, Modal, ScrollArea } from '@mantine/core';
import { useState } from 'react';
// The guide is part of the console's build: it opens without a network, in the desktop app too.
import guide from '../../../docs/authoring-tools.md?raw';
import { GuideText } from '../../ui/GuideText';

/** "Authoring tool guide": where Storyline, Rise, Captivate, iSpring, Lectora, Adapt and H5P take the endpoint, key and secret. */
export function AuthoringGuideButton({ variant = 'light' }: { variant?: 'light' | 'subtle' | 'default' }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="xs" variant={variant} onClick={() => setOpen(true)}>
        Authoring tool guide
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="Connecting authoring tools to Lore" size="xl" scrollAreaComponent={ScrollArea.Autosize}>
        <GuideText markdown={guide} />
      </Modal>
    </>
  );
}
