export const START: string
export const END: string
export function configReference(envExample: string): string
export function readmeWithReference(readme: string, envExample: string): string
