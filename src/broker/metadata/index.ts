// Public surface of the metadata image package.
export * from './image.js';
export * from './events.js';
export * from '../../protocol/metadata-records.js';
export * from './features.js';
export { ImageBuilder, diffImages, MetadataReplayError, DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED } from './delta.js';
export { imageRecords } from './image-writer.js';
export { MetadataLoader } from './loader.js';
export {
  writeBootstrapCheckpoint,
  readBootstrapCheckpoint,
  loadBootstrapMetadata,
  writeDynamicQuorumSnapshot,
  BOOTSTRAP_CHECKPOINT_FILE,
  type BootstrapMetadata,
  type BootstrapSpec,
} from './bootstrap.js';
