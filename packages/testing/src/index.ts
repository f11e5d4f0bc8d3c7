export * from './environment'
