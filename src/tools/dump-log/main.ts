// `tkafka dump-log`: kafka-dump-log.sh (kafka.tools.DumpLogSegments). Offline: reads segment,
// index, time index, producer snapshot, transaction index and KRaft snapshot files and prints them
// line for line as Kafka does; `--output json` prints one JSON object per line instead.
//
// Differences from Kafka, on purpose: files may also be given as plain arguments
// (`tkafka dump-log 00000000000000000000.log`); where Kafka dies with a stack trace on damaged
// input (a zero-filled region, an index entry past the end of the log, a corrupt batch or record),
// tkafka reports the file, the position and Kafka's reason, goes on with what can still be read,
// and exits with status 1. Files are read in bounded chunks, never whole.
import type { ToolIO } from '../common/io.js';
import { VERSION } from '../common/version.js';
import { parseOrUsage, printUsage } from '../common/jopt.js';
import { ChunkedFile } from './chunked-file.js';
import { messageParser, type MessageParser } from './decoders.js';
import { dumpIndex, dumpTimeIndex } from './index-dump.js';
import { javaFileName, javaFilePath } from './java.js';
import { dumpLogFile, logHeaderLine } from './log-dump.js';
import { DUMP_LOG_SPEC, dumpLogOptions, type DumpLogOptions } from './options.js';
import { jsonLine, js, Output, OutputClosed } from './output.js';
import { dumpProducerSnapshot, dumpTxnIndex } from './producer-dump.js';
import { problem, Reports } from './reports.js';

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const parsed = parseOrUsage(DUMP_LOG_SPEC, argv, io, VERSION);
  if ('exitCode' in parsed) return parsed.exitCode;
  const opts = dumpLogOptions(parsed.options);
  if (!parsed.options.has('files') && opts.files.length === 0)
    return printUsage(DUMP_LOG_SPEC, io, 'Missing required argument "[files]"');
  const format = parsed.options.string('output');
  if (format !== 'text' && format !== 'json')
    return printUsage(DUMP_LOG_SPEC, io, `Invalid value for --output: ${format} (text or json)`);
  let parser: MessageParser;
  try {
    parser = messageParser(opts.decoder, opts.keyDecoderClass, opts.valueDecoderClass);
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }
  const out = new Output(io, opts.json);
  const reports = new Reports();
  try {
    for (const arg of opts.files) {
      await dumpFile(out, opts, parser, reports, arg);
      await out.maybeFlush();
    }
  } catch (e) {
    if (!(e instanceof OutputClosed)) throw e;
    return 0;
  }
  reports.print(out);
  await out.close();
  return out.failed ? 1 : 0;
}

function openFile(out: Output, path: string): ChunkedFile | null {
  try {
    return ChunkedFile.open(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'No such file or directory'
        : code === 'EISDIR'
          ? 'Is a directory'
          : code === 'EACCES'
            ? 'Permission denied'
            : (e as Error).message;
    problem(out, path, null, `java.io.FileNotFoundException: ${path} (${reason})`);
    return null;
  }
}

async function dumpFile(
  out: Output,
  opts: DumpLogOptions,
  parser: MessageParser,
  reports: Reports,
  arg: string,
): Promise<void> {
  const path = javaFilePath(arg);
  const name = javaFileName(arg);
  const dot = name.lastIndexOf('.');
  const suffix = dot < 0 ? '' : name.slice(dot);
  const fileEvent = (extra: [string, string][] = []): void => {
    if (out.json)
      out.line(
        jsonLine([['type', js('file')], ['path', js(path)], ['kind', js(suffix.slice(1) || 'unknown')], ...extra]),
      );
    else out.line(`Dumping ${path}`);
  };
  switch (suffix) {
    case '.log':
    case '.checkpoint': {
      const header = logHeaderLine(name);
      if ('error' in header) {
        fileEvent();
        return problem(out, path, null, header.error);
      }
      fileEvent(header.json);
      if (!out.json) out.line(header.text);
      const f = openFile(out, path);
      if (!f) return;
      try {
        await dumpLogFile({ out, opts, parser, reports }, path, f);
      } finally {
        f.close();
      }
      return;
    }
    case '.index':
      fileEvent();
      return dumpIndex({ out, opts, reports }, path);
    case '.timeindex':
      fileEvent();
      return dumpTimeIndex({ out, opts, reports }, path);
    case '.snapshot':
    case '.txnindex': {
      fileEvent();
      let f: ChunkedFile | null;
      if (suffix === '.txnindex') {
        try {
          f = ChunkedFile.open(path);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // TransactionIndex: no file, no entries
          f = openFile(out, path);
        }
      } else f = openFile(out, path);
      if (!f) return;
      try {
        await (suffix === '.snapshot' ? dumpProducerSnapshot(out, path, f) : dumpTxnIndex(out, path, f));
      } finally {
        f.close();
      }
      return;
    }
    default:
      fileEvent();
      if (out.json)
        out.line(
          jsonLine([
            ['type', js('ignored')],
            ['file', js(path)],
          ]),
        );
      else out.errLine(`Ignoring unknown file ${path}`);
  }
}
