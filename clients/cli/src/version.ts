// The client's version (also sent as its User-Agent).
export const VERSION = "0.1.0";
