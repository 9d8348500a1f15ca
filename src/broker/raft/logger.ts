// The logger the Raft layer, the metadata loader and the controller write to.
export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string, err?: unknown): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
