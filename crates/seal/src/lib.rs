//! ciphermeter-seal
