import StrataStorage

/// Opcodes of the binary instruction encoding (the payload of a log record).
private enum Opcode: UInt8 {
    case createTable = 1, removeTable, addColumn, removeColumn, renameColumn, setIndexed, setPrimaryKey
    case insertObject = 16, eraseObject, setValue
    case listInsert = 32, listErase, listSet, listMove, listClear
    case setInsert = 48, setErase, setClear
    case dictionarySet = 64, dictionaryErase, dictionaryClear
}

extension ByteWriter {
    /// Appends the encoding of a commit's instructions (count, then each instruction).
    mutating func write(_ instructions: [Instruction]) {
        writeCount(instructions.count)
        for instruction in instructions { write(instruction) }
    }

    private mutating func write(_ op: Opcode) { write(op.rawValue) }

    private mutating func write(_ path: PropertyPath, _ op: Opcode) {
        write(op)
        writeVarint(UInt64(path.table.rawValue))
        writeSignedVarint(path.object.rawValue)
        writeCount(path.column)
    }

    mutating func write(_ instruction: Instruction) {
        switch instruction {
        case .createTable(let table, let schema):
            write(.createTable)
            writeVarint(UInt64(table.rawValue))
            write(schema)
        case .removeTable(let table):
            write(.removeTable)
            writeVarint(UInt64(table.rawValue))
        case .addColumn(let table, let column, let fill):
            write(.addColumn)
            writeVarint(UInt64(table.rawValue))
            write(column)
            write(fill)
        case .removeColumn(let table, let column):
            write(.removeColumn)
            writeVarint(UInt64(table.rawValue))
            writeCount(column)
        case .renameColumn(let table, let column, let name):
            write(.renameColumn)
            writeVarint(UInt64(table.rawValue))
            writeCount(column)
            writeString(name)
        case .setIndexed(let table, let column, let indexed):
            write(.setIndexed)
            writeVarint(UInt64(table.rawValue))
            writeCount(column)
            write(indexed ? 1 : 0)
        case .setPrimaryKey(let table, let name):
            write(.setPrimaryKey)
            writeVarint(UInt64(table.rawValue))
            write(name == nil ? 0 : 1)
            if let name { writeString(name) }
        case .insertObject(let table, let object, let values):
            write(.insertObject)
            writeVarint(UInt64(table.rawValue))
            writeSignedVarint(object.rawValue)
            writeCount(values.count)
            for value in values { write(value) }
        case .eraseObject(let table, let object):
            write(.eraseObject)
            writeVarint(UInt64(table.rawValue))
            writeSignedVarint(object.rawValue)
        case .setValue(let path, let value):
            write(path, .setValue)
            write(value)
        case .list(let path, let change):
            switch change {
            case .insert(let index, let value):
                write(path, .listInsert)
                writeCount(index)
                write(value)
            case .erase(let index):
                write(path, .listErase)
                writeCount(index)
            case .set(let index, let value):
                write(path, .listSet)
                writeCount(index)
                write(value)
            case .move(let from, let to):
                write(path, .listMove)
                writeCount(from)
                writeCount(to)
            case .clear:
                write(path, .listClear)
            }
        case .set(let path, let change):
            switch change {
            case .insert(let value):
                write(path, .setInsert)
                write(value)
            case .erase(let value):
                write(path, .setErase)
                write(value)
            case .clear:
                write(path, .setClear)
            }
        case .dictionary(let path, let change):
            switch change {
            case .set(let key, let value):
                write(path, .dictionarySet)
                writeString(key)
                write(value)
            case .erase(let key):
                write(path, .dictionaryErase)
                writeString(key)
            case .clear:
                write(path, .dictionaryClear)
            }
        }
    }
}

extension ByteReader {
    /// Reads what `ByteWriter.write(_: [Instruction])` wrote.
    mutating func readInstructions() throws -> [Instruction] {
        let count = try readCount(minimumElementSize: 2)
        var instructions: [Instruction] = []
        instructions.reserveCapacity(count)
        for _ in 0..<count { instructions.append(try readInstruction()) }
        return instructions
    }

    /// Reads a whole commit's payload: its instructions, with nothing after them.
    ///
    /// - Throws: ``StrataError/Code/corruptFile`` for malformed instructions or trailing bytes.
    mutating func readPayloadInstructions() throws -> [Instruction] {
        let instructions = try readInstructions()
        guard isAtEnd else { throw corrupt("trailing bytes after the instructions") }
        return instructions
    }

    private mutating func readIndex() throws -> Int {
        let raw = try readVarint()
        guard raw <= UInt64(maximumCollectionIndex) else { throw corrupt("index \(raw) out of range") }
        return Int(raw)
    }

    private mutating func readPath() throws -> PropertyPath {
        let table = try readTableKey()
        let object = ObjectKey(try readSignedVarint())
        return PropertyPath(table: table, object: object, column: try readIndex())
    }

    mutating func readInstruction() throws -> Instruction {
        let raw = try readByte()
        guard let op = Opcode(rawValue: raw) else { throw corrupt("unknown instruction \(raw)") }
        switch op {
        case .createTable:
            let table = try readTableKey()
            return .createTable(table, try readTableSchema())
        case .removeTable:
            return .removeTable(try readTableKey())
        case .addColumn:
            let table = try readTableKey()
            let column = try readColumnSchema()
            return .addColumn(table, column, fill: try readValue())
        case .removeColumn:
            let table = try readTableKey()
            return .removeColumn(table, try readIndex())
        case .renameColumn:
            let table = try readTableKey()
            let column = try readIndex()
            return .renameColumn(table, column, try readString())
        case .setIndexed:
            let table = try readTableKey()
            let column = try readIndex()
            return .setIndexed(table, column, try readByte() != 0)
        case .setPrimaryKey:
            let table = try readTableKey()
            return .setPrimaryKey(table, try readByte() != 0 ? try readString() : nil)
        case .insertObject:
            let table = try readTableKey()
            let object = ObjectKey(try readSignedVarint())
            let count = try readCount()
            var values: [Value] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try readValue()) }
            return .insertObject(table, object, values)
        case .eraseObject:
            let table = try readTableKey()
            return .eraseObject(table, ObjectKey(try readSignedVarint()))
        case .setValue:
            let path = try readPath()
            return .setValue(path, try readValue())
        case .listInsert:
            let path = try readPath()
            let index = try readIndex()
            return .list(path, .insert(index: index, value: try readValue()))
        case .listErase:
            let path = try readPath()
            return .list(path, .erase(index: try readIndex()))
        case .listSet:
            let path = try readPath()
            let index = try readIndex()
            return .list(path, .set(index: index, value: try readValue()))
        case .listMove:
            let path = try readPath()
            let from = try readIndex()
            return .list(path, .move(from: from, to: try readIndex()))
        case .listClear:
            return .list(try readPath(), .clear)
        case .setInsert:
            let path = try readPath()
            return .set(path, .insert(try readValue()))
        case .setErase:
            let path = try readPath()
            return .set(path, .erase(try readValue()))
        case .setClear:
            return .set(try readPath(), .clear)
        case .dictionarySet:
            let path = try readPath()
            let key = try readString()
            return .dictionary(path, .set(key: key, value: try readValue()))
        case .dictionaryErase:
            let path = try readPath()
            return .dictionary(path, .erase(key: try readString()))
        case .dictionaryClear:
            return .dictionary(try readPath(), .clear)
        }
    }
}
