// What a device id may be: the MQTT gateway checks it on connect and on every HTTP reading, and
// the OpenAPI document states it for the path parameter.
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
