//! ciphermeter-store
