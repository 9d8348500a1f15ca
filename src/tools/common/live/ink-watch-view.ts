// Mounts an ink screen as a watch's live view (imported only on a terminal): the first frame
// renders it, later frames re-render it, close unmounts it.
import React from 'react';
import { render, type Instance } from 'ink';
import { ensureTerminalSize } from '../tty.js';
import type { WatchView } from './watch-loop.js';

export interface ScreenProps<F> {
  frame: F;
  intervalMs: number;
  source?: string;
  width: number;
  height: number;
}

export function mountWatchView<F>(
  stream: NodeJS.WritableStream,
  screen: (props: ScreenProps<F>) => React.ReactElement,
): WatchView<F> {
  const tty = stream as NodeJS.WriteStream;
  ensureTerminalSize(tty);
  let instance: Instance | null = null;
  return {
    render(frame, info) {
      const el = React.createElement(screen, {
        frame,
        intervalMs: info.intervalMs,
        ...(info.source ? { source: info.source } : {}),
        width: tty.columns || 80,
        height: tty.rows || 24,
      });
      if (!instance) instance = render(el, { stdout: tty, stderr: tty, patchConsole: false, exitOnCtrlC: false });
      else instance.rerender(el);
    },
    async close() {
      if (!instance) return;
      instance.unmount();
      await instance.waitUntilExit().catch(() => undefined);
      instance = null;
    },
  };
}
