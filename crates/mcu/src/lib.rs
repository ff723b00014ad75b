//! ciphermeter-mcu
