import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    {/* 'auto' follows the OS until the user picks Light or Dark (kept in localStorage). */}
    <MantineProvider defaultColorScheme="auto">
      <App bridge={window.lore} />
    </MantineProvider>
  </StrictMode>,
);
