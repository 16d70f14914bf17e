export * from './site';
export * from './user';
export * from './account';
export * from './ask';
export * from './messages';
export * from './modules';
export * from './md';
export * from './chat';
