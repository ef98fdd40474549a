export * from './program';
export * from './packages/archive-bytes.writer';
export * from './packages/deb-crafting';
export * from './packages/deb.builder';
export * from './packages/rpm-crafting';
export * from './packages/rpm.builder';
export * from './packages/corpus.builder';
