export * from './environment'
export * from './push-receiver'
export * from './browser'
export * from './pgbouncer'
