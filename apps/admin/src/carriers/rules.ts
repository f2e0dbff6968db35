/** CARRIER_MOCK is honoured outside production only. */
export function isCarrierMockOn(config: { NODE_ENV: string; CARRIER_MOCK: boolean }): boolean {
  return config.CARRIER_MOCK && config.NODE_ENV !== 'production';
}
