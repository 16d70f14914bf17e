export * from './site';
export * from './user';
