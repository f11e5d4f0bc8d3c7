export * from './environment'
export * from './push-receiver'
