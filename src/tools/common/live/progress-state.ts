// What a progress display shows at one moment: progress.ts keeps it, progress-view.ts draws it.

export type ProgressUnit = 'records' | 'messages' | 'bytes';

export interface ProgressState {
  title: string;
  done: number;
  total: number;
  unit: ProgressUnit;
  details: readonly string[];
  startedAt: number;
  now: number;
  finished: boolean;
}
