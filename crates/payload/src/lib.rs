//! ciphermeter-payload
