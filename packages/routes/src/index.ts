export * from './table'
export * from './service-routes'
