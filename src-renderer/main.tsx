import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { DesktopRoot } from './shell/DesktopRoot';
import { WebRoot } from './shell/WebRoot';
import { theme } from './shell/theme';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    {/* 'auto' follows the OS until the user picks Light or Dark (kept in localStorage). */}
    <MantineProvider defaultColorScheme="auto" theme={theme}>
      {window.lore ? <DesktopRoot bridge={window.lore} /> : <WebRoot />}
    </MantineProvider>
  </StrictMode>,
);
