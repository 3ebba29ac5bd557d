import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { lazyComponent } from './shell/lazy-component';
import { WebRoot } from './shell/WebRoot';
import { theme } from './shell/theme';
import { LoadingState } from './ui/StateViews';

// The desktop app's root (its bridge to the main process) is no part of the web console's first visit.
const DesktopRoot = lazyComponent(() => import('./shell/DesktopRoot').then((m) => m.DesktopRoot));

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    {/* 'auto' follows the OS until the user picks Light or Dark (kept in localStorage). */}
    <MantineProvider defaultColorScheme="auto" theme={theme}>
      {window.lore ? (
        <Suspense fallback={<LoadingState label="Opening the console…" />}>
          <DesktopRoot bridge={window.lore} />
        </Suspense>
      ) : (
        <WebRoot />
      )}
    </MantineProvider>
  </StrictMode>,
);
